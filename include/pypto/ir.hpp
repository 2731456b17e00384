// pypto/ir.hpp — the IR: every node, type, attribute and the kind dispatch.
#pragma once

#include "pypto/core/dtype.hpp"
#include "pypto/core/error.hpp"
#include "pypto/core/span.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/op_id.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/reductions.hpp"
#include "pypto/ir/scope_attrs.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
