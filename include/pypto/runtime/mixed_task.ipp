// pypto/runtime/mixed_task.ipp — the definitions of runtime/mixed_task.hpp.
#pragma once

#include "pypto/runtime/mixed_task.hpp"

#include <deque>
#include <map>
#include <string>
#include <thread>

#include "pypto/runtime/interpreter.hpp"

namespace pypto::runtime {

struct MixedTask::Pipes {
  std::map<std::pair<PipeDirection, std::int64_t>, std::deque<Value>> fifo;
};

PYPTO_DECL MixedTask::MixedTask(std::size_t n, Kind kind)
    : slots_(n), kind_(kind), pipes_(std::make_unique<Pipes>()) {}

PYPTO_DECL MixedTask::~MixedTask() = default;

namespace detail {
/// The task the calling thread runs a member of (set for the member's whole run).
PYPTO_DECL MixedTask*& current_mixed_task() {
  thread_local MixedTask* task = nullptr;
  return task;
}
/// The world the calling thread runs a rank of (set for the rank's whole run).
PYPTO_DECL MixedTask*& current_world() {
  thread_local MixedTask* task = nullptr;
  return task;
}
}  // namespace detail

PYPTO_DECL MixedTask* MixedTask::current() { return detail::current_mixed_task(); }

PYPTO_DECL MixedTask* MixedTask::world() { return detail::current_world(); }

PYPTO_DECL std::vector<std::vector<Value>> MixedTask::run(std::vector<Member> members, Kind kind) {
  std::vector<std::vector<Value>> results(members.size());
  if (members.empty()) return results;
  MixedTask task(members.size(), kind);
  for (const Member& m : members) task.names_.push_back(m.name);
  std::vector<std::thread> threads;
  threads.reserve(members.size());
  try {
    for (std::size_t k = 0; k < members.size(); ++k)
      threads.emplace_back(
          [&task, &members, &results, k] { task.member_main(k, members[k], results[k]); });
  } catch (...) {  // no thread for a member: stop the ones that started
    {
      std::lock_guard<std::mutex> lock(task.mutex_);
      task.stopped_ = true;
      if (!task.error_) task.error_ = std::current_exception();
    }
    task.cv_.notify_all();
  }
  for (std::thread& t : threads) t.join();
  if (task.error_) std::rethrow_exception(task.error_);
  return results;
}

PYPTO_DECL void MixedTask::member_main(std::size_t k, Member& m, std::vector<Value>& results) {
  MixedTask*& current =
      kind_ == Kind::Ranks ? detail::current_world() : detail::current_mixed_task();
  current = this;
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return turn_ == k || stopped_; });
  if (!stopped_) {
    lock.unlock();
    std::exception_ptr error;
    try {
      results = m.run();
    } catch (const Stopped&) {  // another member failed first: its error is the task's
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !error_) error_ = error;
    if (error) stopped_ = true;
  }
  slots_[k].state = State::Done;
  ++done_;
  if (!stopped_) pass_baton(k);
  lock.unlock();
  cv_.notify_all();
  current = nullptr;
}

PYPTO_DECL bool MixedTask::can_go(std::size_t k) const {
  const Slot& s = slots_[k];
  if (s.state == State::Ready) return true;
  if (s.state == State::Done) return false;
  if (s.barrier) return *s.barrier < generation_;
  if (s.until) return s.until();
  const auto it = pipes_->fifo.find(s.waits_on);
  return it != pipes_->fifo.end() && !it->second.empty();
}

PYPTO_DECL void MixedTask::pass_baton(std::size_t from) {
  const std::size_t n = slots_.size();
  for (std::size_t step = 1; step <= n; ++step) {
    const std::size_t k = (from + step) % n;
    if (can_go(k)) {
      turn_ = k;
      return;
    }
  }
  if (done_ == n) return;
  std::string waits;
  std::string ended;
  for (std::size_t k = 0; k < n; ++k) {
    const Slot& s = slots_[k];
    if (s.state == State::Done && !ended.empty()) ended += ", ";
    if (s.state == State::Done) ended += names_[k];
    if (s.state != State::Waiting) continue;
    waits += (waits.empty() ? "" : "; ") + names_[k] + " waits in " + s.waits_op;
    if (s.barrier || s.until) continue;
    waits += " (pipe " + std::to_string(s.waits_on.second) + " toward " +
             (s.waits_on.first == PipeDirection::ToAiv ? "AIV" : "AIC") + ")";
  }
  if (arrived_ > 0)
    waits += "; the barrier waits for every member" +
             (ended.empty() ? std::string() : ", and " + ended + " ended without reaching it");
  if (!error_)
    error_ = std::make_exception_ptr(RuntimeError(
        std::string(kind_ == Kind::Ranks ? "world" : "mixed task") +
        ": every member that has not ended waits, and nothing it waits for will come: " + waits));
  stopped_ = true;
}

PYPTO_DECL void MixedTask::push(PipeDirection d, std::int64_t id, Value tile) {
  std::lock_guard<std::mutex> lock(mutex_);
  pipes_->fifo[{d, id}].push_back(std::move(tile));
}

PYPTO_DECL Value MixedTask::pop(PipeDirection d, std::int64_t id, const std::string& op) {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::size_t k = turn_;  // the caller holds the baton
  std::deque<Value>& pipe = pipes_->fifo[{d, id}];
  while (pipe.empty()) {
    slots_[k].waits_on = {d, id};
    slots_[k].waits_op = op;
    wait_turn(k, lock);
  }
  Value tile = std::move(pipe.front());
  pipe.pop_front();
  return tile;
}

PYPTO_DECL void MixedTask::arrive(const std::string& op) {
  if (kind_ == Kind::Group)
    throw RuntimeError(op +
                       " in a member of a Group's mixed task: a barrier across the blocks of a "
                       "launch whose AIC and AIV members run side by side is not run here");
  std::unique_lock<std::mutex> lock(mutex_);
  const std::size_t k = turn_;        // the caller holds the baton
  if (++arrived_ == slots_.size()) {  // the last to arrive releases the others and goes on
    arrived_ = 0;
    ++generation_;
    return;
  }
  slots_[k].barrier = generation_;
  slots_[k].waits_op = op;
  while (*slots_[k].barrier >= generation_) wait_turn(k, lock);
  slots_[k].barrier.reset();
}

PYPTO_DECL void MixedTask::wait_until(const std::function<bool()>& ready, const std::string& op) {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::size_t k = turn_;  // the caller holds the baton
  while (!ready()) {
    slots_[k].until = ready;
    slots_[k].waits_op = op;
    wait_turn(k, lock);
  }
  slots_[k].until = nullptr;
}

PYPTO_DECL void MixedTask::wait_turn(std::size_t k, std::unique_lock<std::mutex>& lock) {
  if (stopped_) throw Stopped{};
  slots_[k].state = State::Waiting;
  pass_baton(k);
  cv_.notify_all();
  cv_.wait(lock, [&] { return turn_ == k || stopped_; });
  if (stopped_) throw Stopped{};
  slots_[k].state = State::Ready;
}

}  // namespace pypto::runtime
