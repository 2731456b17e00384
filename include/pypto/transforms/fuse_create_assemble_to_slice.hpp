// pypto/transforms/fuse_create_assemble_to_slice.hpp — a staging buffer written in place.
//
// FuseCreateAssembleToSlice (`fuse-create-assemble-to-slice`), upstream PyPTO's pass of the name:
// in an Orchestration function, `c = tensor.create(shape)` whose buffer kernels fill and exactly
// one `tensor.assemble(target, c, offsets)` copies into a target becomes
// `c = tensor.slice(target, shape, offsets)`, a view of the box the assemble wrote (of lower rank
// than the target when the create's is: the box's leading extents are 1), and the assemble goes:
// its result is the target from there on. The kernels then write the target directly, with no
// staging buffer and no copy. Fused only where that cannot change what the program computes:
// the create and the assemble are statements of one block; between them the staging buffer (the
// create's value, or a call's result that returns it) is only a program call's Out argument or
// copied, and nothing binds the target or a variable of the offsets or uses the target's buffer;
// elsewhere it is only the assemble's source. Elements no kernel writes are undefined on a
// device (the interpreter's create zero-fills them; the view keeps the target's). Requires
// SplitIncoreOrch; keeps every property. O(N) per Orchestration function.
#pragma once

#include "pypto/core/config.hpp"
#include "pypto/text/call_types.hpp"
#include "pypto/transforms/pass.hpp"

namespace pypto::transforms {

/// FuseCreateAssembleToSlice (see the top of this header); `ops` gives the ops' effects and
/// makes the slices.
PYPTO_DECL Pass FuseCreateAssembleToSlice(const ir::OpRegistry& ops = text::default_op_registry());

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/fuse_create_assemble_to_slice.ipp"
#endif
