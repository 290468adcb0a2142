// File: progress.hpp
// Long work with the GIL released: progress callbacks that take it back, and
// Ctrl-C answered while C++ works (PythonProgress, run_interruptibly).
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "text.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/interruption.hpp"
#include "tokenlab/training_observer.hpp"

namespace tokenlab::python {

namespace py = pybind11;

// Progress from the library, with the GIL released around the work: each call
// takes the GIL, runs the Python callback and checks for signals. A Python
// error (KeyboardInterrupt from Ctrl-C, or the callback's own) is kept and the
// work is stopped with a tokenlab::Error; once the work has returned, the kept
// error is raised instead of whatever the library made of the stop.
class PythonProgress {
 public:
  explicit PythonProgress(py::object callback) : callback_(std::move(callback)) {}

  // With the GIL released: returns normally or throws tokenlab::Error to stop.
  // Without tell, only the signals are checked (a stage the user need not see).
  void report(const std::string& stage, std::optional<double> fraction, bool tell = true) {
    py::gil_scoped_acquire gil;
    if (error_) throw Error("stopped: " + stage);
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (tell && !callback_.is_none())
        callback_(stage, fraction ? py::cast(*fraction) : py::object(py::none()));
    } catch (py::error_already_set& e) {
      error_ = std::move(e);
      throw Error("interrupted during " + stage);
    }
  }

  // With the GIL held, after the work: a kept Python error is raised.
  void raise_if_stopped() {
    if (error_) {
      py::error_already_set e = std::move(*error_);
      error_.reset();
      throw e;
    }
  }

  // Runs work with the GIL released; raises the kept error if there is one.
  template <class Fn>
  auto run(Fn&& work) {
    try {
      py::gil_scoped_release release;
      return work();
    } catch (...) {
      raise_if_stopped();
      throw;
    }
  }

 private:
  py::object callback_;
  std::optional<py::error_already_set> error_;
};

class PythonObserver final : public TrainingObserver {
 public:
  explicit PythonObserver(PythonProgress& progress) : progress_(progress) {}
  void on_progress(std::string_view stage, double fraction) override {
    progress_.report(std::string(stage), fraction);
  }
  void on_message(std::string_view message) override {
    py::gil_scoped_acquire gil;
    py::print(text(message), py::arg("file") = py::module_::import("sys").attr("stderr"));
  }

 private:
  PythonProgress& progress_;
};

// How often a thread waiting for encoding workers looks for Ctrl-C.
inline constexpr std::chrono::milliseconds kSignalPoll{50};

// With the GIL held: raises KeyboardInterrupt (or a signal handler's exception)
// when a signal arrived. Python runs handlers only on the main thread, and only
// when asked: a thread waiting on C++ work must ask.
inline bool signal_pending() {
  return PyErr_CheckSignals() != 0;
}

// Runs work(stop) on a new thread while this one (the GIL released) waits,
// looking for signals every kSignalPoll; on one, sets stop, waits for the work
// to notice (it checks between pieces or chunks), and raises the Python error.
// The work's own exception is rethrown.
template <class Work>
void run_interruptibly(Work&& work) {
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      InterruptionScope scope(stop);
      work(stop);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard lock(mutex);
      done = true;
    }
    finished.notify_all();
  });
  bool interrupted = false;
  for (;;) {
    {
      py::gil_scoped_release release;
      std::unique_lock lock(mutex);
      if (finished.wait_for(lock, kSignalPoll, [&] { return done; })) break;
    }
    if (signal_pending()) {
      interrupted = true;
      stop = true;
      py::gil_scoped_release release;
      std::unique_lock lock(mutex);
      finished.wait(lock, [&] { return done; });
      break;
    }
  }
  worker.join();
  if (interrupted) throw py::error_already_set();
  if (error) std::rethrow_exception(error);
}

}  // namespace tokenlab::python
