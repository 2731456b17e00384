// Compile-time comparison of two ways to iterate the descriptor lists: the fold expression over
// the plain FieldList (what pypto uses) and hana::for_each over the same descriptors viewed as a
// hana::basic_tuple (-DPYPTO_WALK_WITH_HANA). Every node type of the catalog gets a field walk
// that hashes its field names and kinds, so both variants instantiate the same work.
//   benchmarks/compile_time.sh benchmarks/compile_time_descriptors.cpp
//   PYPTO_CT_FLAGS=-DPYPTO_WALK_WITH_HANA benchmarks/compile_time.sh
//   benchmarks/compile_time_descriptors.cpp
#include <cstdint>
#include <pypto/core/hash.hpp>
#include <pypto/ir.hpp>

#ifdef PYPTO_WALK_WITH_HANA
#include <boost/hana/for_each.hpp>
#include <pypto/reflect/hana.hpp>
#endif

namespace {

template <class T>
std::uint64_t field_signature() {
  std::uint64_t h = 0;
#ifdef PYPTO_WALK_WITH_HANA
  boost::hana::for_each(pypto::reflect::hana_fields<T>(), [&](auto type) {
    using F = typename decltype(type)::type;
    h = pypto::core::hash_combine(h, pypto::core::hash_string(F::name));
    h = pypto::core::hash_combine(h, static_cast<std::uint64_t>(F::kind));
  });
#else
  pypto::reflect::for_each_field_descriptor<T>([&](auto f) {
    using F = decltype(f);
    h = pypto::core::hash_combine(h, pypto::core::hash_string(F::name));
    h = pypto::core::hash_combine(h, static_cast<std::uint64_t>(F::kind));
  });
#endif
  return h;
}

}  // namespace

int main() {
  using namespace pypto::ir;
  std::uint64_t h = 0;
#define PYPTO_X(T) h ^= field_signature<T>();
  PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
  return static_cast<int>(h & 1);
}
