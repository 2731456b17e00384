// pypto/dedup.hpp — the entry a host compiler includes for kernel deduplication (seed 001): the
// IR, the structural engine (equal, hash, first-mismatch diagnostics, binding verification),
// the text parser and printer, the pass manager and DeduplicateOutlinedKernels with its
// diagnostics sink. Self-sufficient; lighter than pypto.hpp (no kernel IR, no codegen).
#pragma once

#include "pypto/ir.hpp"
#include "pypto/structural.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/transforms/deduplicate_outlined_kernels.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"
