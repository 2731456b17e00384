// pypto/pypto.hpp — everything the library offers, for quick experiments. Library code and tests
// include the specific headers they use instead (compile time is a feature).
#pragma once

#include "pypto/ir.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/kernel/canonicalize.hpp"
#include "pypto/kernel/graph.hpp"
#include "pypto/kernel/interpreter.hpp"
#include "pypto/kernel/key.hpp"
#include "pypto/kernel/serialize.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/structural.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"
#include "pypto/transforms/convert_to_ssa.hpp"
#include "pypto/transforms/normalize_stmt_structure.hpp"
#include "pypto/transforms/outline_properties.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"
#include "pypto/transforms/return_lineage.hpp"
#include "pypto/transforms/stmt_tree.hpp"
#include "pypto/transforms/ssa_form.hpp"
