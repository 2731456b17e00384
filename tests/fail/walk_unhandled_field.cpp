// expect-error: the visitor has no .visit\(const T&\). overload
// Must not compile: the visitor handles node handles and integers but not core::DataType, the
// type of ScalarType::dtype. reflect::walk_fields must reject the field at compile time with a
// message naming the missing overload, instead of silently skipping it.
#include <cstdint>
#include <type_traits>

#include "pypto/ir/type.hpp"
#include "pypto/reflect/walk.hpp"

namespace {
struct NodesAndIntegers {
  template <class T>
  requires std::is_base_of_v<pypto::ir::Node, T>
  void visit(const pypto::core::Ref<const T>&) {}
  template <class I>
  requires std::is_integral_v<I>
  void visit(I) {}
};
}  // namespace

void walk_scalar_type(const pypto::ir::ScalarType& t) {
  NodesAndIntegers v;
  pypto::reflect::walk_fields(v, t);
}
