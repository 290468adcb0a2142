// A shared library that is not a tokenlab plugin: it exports a function, but not
// the entry point. The registry must say so instead of crashing.
extern "C" __attribute__((visibility("default"))) int tokenlab_test_not_a_plugin() {
  return 42;
}
