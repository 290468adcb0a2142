#include "tokenlab/training_observer.hpp"

namespace tokenlab {

TrainingObserver::~TrainingObserver() = default;
void TrainingObserver::on_progress(std::string_view, double) {}
void TrainingObserver::on_step(const TrainingStep&) {}
void TrainingObserver::on_message(std::string_view) {}
bool TrainingObserver::trace() const {
  return false;
}

}  // namespace tokenlab
