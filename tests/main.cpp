// The single Catch2 main shared by every test executable; it holds no tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
