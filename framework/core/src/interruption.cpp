#include "tokenlab/interruption.hpp"

namespace tokenlab {

namespace {
thread_local const std::atomic<bool>* current_flag = nullptr;
}  // namespace

Interrupted::Interrupted() : Error("interrupted") {}
Interrupted::~Interrupted() = default;

InterruptionScope::InterruptionScope(const std::atomic<bool>& flag) noexcept
    : previous_(current_flag) {
  current_flag = &flag;
}

InterruptionScope::~InterruptionScope() {
  current_flag = previous_;
}

void throw_if_interrupted() {
  if (current_flag != nullptr && current_flag->load(std::memory_order_relaxed)) throw Interrupted();
}

}  // namespace tokenlab
