// tests/codegen/pto/pto-inst.hpp — stands in for the PTO-ISA header that NPU kernels include.
#pragma once
#include "../pto_stub.hpp"
