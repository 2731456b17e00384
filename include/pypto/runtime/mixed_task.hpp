// pypto/runtime/mixed_task.hpp — the members of one mixed task (a Group's AIC and AIV
// functions) run side by side, handing tiles through cross-core pipes (tpush / tpop).
//
// Each member runs on its own thread, but one at a time: a member holds the baton until it
// pops from an empty pipe, waits at the barrier or ends, and the baton then goes to the next member
// (in member order) that can go on. Switches happen only there, so a run is deterministic; and
// since the members share nothing but the pipes and the tensors they are given, their results are
// those of any interleaving the device may choose (the members form a Kahn network). A pipe is a
// FIFO per direction and pipe id; it is unbounded (a device slot ring only delays its producer).
// Members that all wait on empty pipes are a deadlock: a RuntimeError naming each member and
// the pipe it waits on. The blocks of a launch whose kernel syncs (`system.syncall`) run the
// same way, as the members of a task of blocks, where `arrive` is their barrier. The interpreter
// and the CPU runtime (compiled members) share it: docs/runtime.md, "Mixed tasks".
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/config.hpp"

namespace pypto::runtime {

struct Value;  // interpreter.hpp, which the interpreter's definitions include this from

/// The direction of a cross-core pipe: toward the AIV member (tpush_to_aiv / tpop_from_aic) or
/// toward the AIC member (tpush_to_aic / tpop_from_aiv).
enum class PipeDirection : std::uint8_t { ToAiv, ToAic };

class MixedTask {
 public:
  struct Member {
    std::string name;                         ///< the member function's name, for diagnostics
    std::function<std::vector<Value>()> run;  ///< runs the member to its end: its results
  };

  /// What the members are: a Group's AIC and AIV functions, the blocks of one launch, or the
  /// ranks of a world (each running its device's calls in order).
  enum class Kind : std::uint8_t { Group, Blocks, Ranks };

  /// Runs `members` as one task: each one's results, in member order. The first error a member
  /// raises (or a deadlock) is rethrown here after every member has stopped.
  PYPTO_DECL static std::vector<std::vector<Value>> run(std::vector<Member> members,
                                                        Kind kind = Kind::Group);

  /// The task (a Group's or a launch's blocks) the calling thread runs a member of, or null
  /// outside one. A world's ranks are not such a task: see world().
  PYPTO_DECL static MixedTask* current();
  /// The world (Kind::Ranks) the calling thread runs a rank of, or null.
  PYPTO_DECL static MixedTask* world();

  /// Appends `tile` to the pipe (`d`, `id`).
  PYPTO_DECL void push(PipeDirection d, std::int64_t id, Value tile);

  /// The oldest tile of the pipe (`d`, `id`), waiting while it is empty; RuntimeError naming
  /// `op` on a deadlock.
  PYPTO_DECL Value pop(PipeDirection d, std::int64_t id, const std::string& op);

  /// What this task's members are.
  Kind kind() const { return kind_; }

  /// The barrier of a task of blocks (`op`, a syncall) or of ranks (a collective): waits until
  /// every member has arrived. RuntimeError naming `op` in a Group's task, or when a member ends
  /// without arriving.
  PYPTO_DECL void arrive(const std::string& op);

  /// Waits until `ready()` holds (a rank's signal wait, `op` describing it): the other members
  /// run meanwhile, and `ready` is asked again whenever one of them stops. The caller holds the
  /// baton; `ready` reads only what members change while they hold it.
  PYPTO_DECL void wait_until(const std::function<bool()>& ready, const std::string& op);

  /// Thrown in a member that waits while another member failed: the task is being stopped.
  struct Stopped {};

 private:
  enum class State : std::uint8_t { Ready, Waiting, Done };
  struct Slot {
    State state = State::Ready;
    std::pair<PipeDirection, std::int64_t> waits_on{};
    std::string waits_op;
    std::optional<std::uint64_t> barrier;  ///< waiting at the barrier of this generation
    std::function<bool()> until;           ///< waiting for this to hold (wait_until)
  };

  struct Pipes;  // the FIFOs by direction and id
  PYPTO_DECL MixedTask(std::size_t n, Kind kind);
  PYPTO_DECL ~MixedTask();
  bool can_go(std::size_t k) const;
  /// Passes the baton from member `from` to the next one that can go on (lock held); none:
  /// the task is stopped with a deadlock error unless every member is done.
  void pass_baton(std::size_t from);
  void member_main(std::size_t k, Member& m, std::vector<Value>& results);
  /// Passes the baton on and waits until member `k` can go on again (lock held).
  void wait_turn(std::size_t k, std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Slot> slots_;
  std::vector<std::string> names_;
  std::size_t turn_ = 0;
  std::size_t done_ = 0;
  Kind kind_;
  std::size_t arrived_ = 0;       ///< members at the barrier of the current generation
  std::uint64_t generation_ = 0;  ///< barriers completed
  bool stopped_ = false;
  std::exception_ptr error_;
  std::unique_ptr<Pipes> pipes_;
};

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/mixed_task.ipp"
#endif
