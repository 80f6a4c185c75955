// krein: the one place the core touches OpenMP. Everything else asks here for
// a thread count and runs its loops through parallel_for(), so that a build
// without OpenMP (or a compiler that ignores the pragmas) runs the same code
// serially.
#ifndef KREIN_PARALLEL_HPP
#define KREIN_PARALLEL_HPP

#include <Eigen/Core>

#include <atomic>
#include <exception>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace krein {
namespace parallel {

// The thread-count rule of every `threads` argument: a positive number is
// taken as given; 0 means OpenMP's default for a parallel region, which
// follows OMP_NUM_THREADS and set_default_threads() (tune_krein() sets one
// thread per parallel worker through it) and is otherwise the number of
// cores. Without OpenMP there is one thread.
inline int thread_count(int requested) {
#ifdef _OPENMP
  return requested > 0 ? requested : omp_get_max_threads();
#else
  (void)requested;
  return 1;
#endif
}

// The processors available to this process (OpenMP's count, which respects
// CPU affinity); 1 without OpenMP. The R side caps every `threads` argument
// at it: more threads than processors only add overhead, and a huge count
// (1e6) exhausts memory and stacks creating them.
// Whether the caller runs on the thread that entered the parallel regions
// (outside a region, or as a region's thread 0): the only one that may call
// into R
inline bool on_calling_thread() {
#ifdef _OPENMP
  // thread 0 at every level of nesting, not only the innermost
  for (int level = omp_get_level(); level >= 1; --level) {
    if (omp_get_ancestor_thread_num(level) != 0) return false;
  }
  return true;
#else
  return true;
#endif
}

inline int processor_count() {
#ifdef _OPENMP
  return omp_get_num_procs();
#else
  return 1;
#endif
}

// Set the default of thread_count(0) for this process (Eigen's products
// follow it too); returns the previous default.
inline int set_default_threads(int threads) {
#ifdef _OPENMP
  const int previous = omp_get_max_threads();
  if (threads > 0) omp_set_num_threads(threads);
  return previous;
#else
  (void)threads;
  return 1;
#endif
}

// How iterations are handed to threads: in equal contiguous blocks (cheap,
// for iterations of equal cost) or `chunk` at a time on demand (for uneven
// ones, such as the columns of a triangle).
struct Schedule {
  int chunk = 0;  // 0: static blocks
  static Schedule blocks() { return Schedule{0}; }
  static Schedule dynamic(int chunk = 1) { return Schedule{chunk}; }
};

// Eigen's own products run on Eigen::nbThreads() OpenMP threads: this sets
// that number for a scope and restores the previous one after.
class EigenThreads {
 public:
  explicit EigenThreads(int threads) : previous_(Eigen::nbThreads()) {
    Eigen::setNbThreads(thread_count(threads));
  }
  ~EigenThreads() { Eigen::setNbThreads(previous_); }
  EigenThreads(const EigenThreads&) = delete;
  EigenThreads& operator=(const EigenThreads&) = delete;

 private:
  int previous_;
};

// body(i) for i in [begin, end) on thread_count(threads) threads. Results
// must not depend on which thread runs an iteration. An exception cannot
// leave an OpenMP region (it would end the process in std::terminate, R with
// it): an iteration's exception (std::bad_alloc from a worker's allocation,
// an error of the body) is caught on its thread, the iterations not yet
// begun are skipped, and the first exception caught is rethrown on the
// calling thread after the region, where the glue turns it into an R error.
template <class Body>
inline void parallel_for(Eigen::Index begin, Eigen::Index end, int threads, Schedule plan,
                         Body body) {
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  const auto guarded = [&](Eigen::Index i) {
    if (failed.load(std::memory_order_relaxed)) return;
    try {
      body(i);
    } catch (...) {
#ifdef _OPENMP
#pragma omp critical(krein_parallel_for_exception)
#endif
      {
        if (!first_error) first_error = std::current_exception();
      }
      failed.store(true, std::memory_order_relaxed);
    }
  };
#ifdef _OPENMP
  const int workers = thread_count(threads);
  if (workers <= 1 || end - begin <= 1) {
    // One thread (or one iteration): no parallel region, whose set-up and
    // wake-ups cost microseconds -- a tenth of the time of a small PCVM's EM
    // iteration, which enters several. Eigen's products in the body stay on
    // this thread, as they would inside a region.
    const EigenThreads single(1);
    for (Eigen::Index i = begin; i < end; ++i) guarded(i);
  } else if (plan.chunk > 0) {
#pragma omp parallel for schedule(dynamic, plan.chunk) num_threads(workers)
    for (Eigen::Index i = begin; i < end; ++i) guarded(i);
  } else {
#pragma omp parallel for schedule(static) num_threads(workers)
    for (Eigen::Index i = begin; i < end; ++i) guarded(i);
  }
#else
  (void)threads;
  (void)plan;
  for (Eigen::Index i = begin; i < end; ++i) guarded(i);
#endif
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace parallel
}  // namespace krein

#endif  // KREIN_PARALLEL_HPP
