// Catch2 entry point for the native core tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
