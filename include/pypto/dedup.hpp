// pypto/dedup.hpp — the entry a host compiler includes for kernel deduplication: the IR, the
// structural engine (equal, hash, first-mismatch diagnostics, binding verification), the text
// parser and printer, the pass manager and DeduplicateOutlinedKernels with its diagnostics
// sink. The other passes are one include each (transforms/<pass>.hpp); the registry of every
// pass is transforms/pass_registry.hpp.
#pragma once

#include "pypto/ir.hpp"
#include "pypto/structural.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/transforms/deduplicate_outlined_kernels.hpp"
#include "pypto/transforms/pass_manager.hpp"
