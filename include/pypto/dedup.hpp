// pypto/dedup.hpp — the entry a host compiler includes for kernel deduplication: the IR, the
// structural engine (equal, hash, first-mismatch diagnostics, binding verification), the pass
// manager and DeduplicateOutlinedKernels with its diagnostics sink — what deduplication needs.
// The text format is text/parser.hpp and text/printer.hpp; the other passes are one include
// each (transforms/<pass>.hpp); the registry of every pass is transforms/pass_registry.hpp.
#pragma once

#include "pypto/ir.hpp"
#include "pypto/structural.hpp"
#include "pypto/transforms/deduplicate_outlined_kernels.hpp"
#include "pypto/transforms/pass_manager.hpp"
