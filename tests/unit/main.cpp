// The single main() of the pypto_tests doctest binary; every other tests/unit/*.cpp holds cases.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
