// HashBuckets (pypto/detail/hash_buckets.hpp): the dedup pass's hash buckets keep each key's
// items in insertion order, apart from every other key's, through any number of table growths.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "pypto/detail/hash_buckets.hpp"

namespace {

using pypto::detail::HashBuckets;

std::vector<std::uint32_t> items_of(const HashBuckets& buckets, const HashBuckets::Bucket& b) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = b.head; i != HashBuckets::kEnd; i = buckets.next(i)) out.push_back(i);
  return out;
}

}  // namespace

TEST_CASE("hash buckets: items listed in insertion order under their own key") {
  HashBuckets buckets;
  buckets.add(buckets.bucket(0), 4);  // key 0 is an ordinary key
  buckets.add(buckets.bucket(7), 1);
  buckets.add(buckets.bucket(0), 2);
  buckets.add(buckets.bucket(0), 9);
  CHECK(items_of(buckets, buckets.bucket(0)) == std::vector<std::uint32_t>{4, 2, 9});
  CHECK(buckets.bucket(0).size == 3);
  CHECK(items_of(buckets, buckets.bucket(7)) == std::vector<std::uint32_t>{1});
  const HashBuckets::Bucket& fresh = buckets.bucket(8);
  CHECK(fresh.size == 0);
  CHECK(fresh.head == HashBuckets::kEnd);
}

TEST_CASE("hash buckets: growth keeps every list") {
  // Keys that share their low bits (the probe's home slots crowd) and many table doublings.
  HashBuckets buckets;
  const std::uint32_t keys = 5000;
  for (std::uint32_t item = 0; item < 3 * keys; ++item)
    buckets.add(buckets.bucket(std::uint64_t{item % keys} << 40), item);
  for (std::uint32_t k = 0; k < keys; ++k) {
    CAPTURE(k);
    REQUIRE(items_of(buckets, buckets.bucket(std::uint64_t{k} << 40)) ==
            std::vector<std::uint32_t>{k, k + keys, k + 2 * keys});
  }
  buckets.clear();
  CHECK(buckets.bucket(0).size == 0);
}
