// krein: advice to the operating system about the large matrices the core
// writes.
//
// A kernel matrix is written into fresh memory: 128 MB for n = 4000, 2.4 GB
// for the 1e6 x 300 cross-kernel. With 4 KB pages every page is a page fault
// on first write, and on Linux where transparent huge pages are enabled only
// on request (`madvise` in /sys/kernel/mm/transparent_hugepage/enabled, the
// default of Ubuntu and of many virtual machines) those faults cost more than
// computing the values: measured on a 2-core virtual machine, an RBF matrix of
// 4000 points took 0.29 s in fresh memory and 0.065 s with 2 MB pages. Asking
// for huge pages before the first write makes it 512 times fewer faults.
// Elsewhere (other systems, huge pages always on or off) this does nothing.
#ifndef KREIN_MEMORY_HPP
#define KREIN_MEMORY_HPP

#include <cstddef>
#include <cstdint>

#include "krein/parallel.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace krein {
namespace memory {

// The whole 4 KB pages inside [data, data + bytes), as addresses [first,
// end); empty (end <= first) for a null pointer or a region under `least`
// bytes, which the advice below leaves alone.
struct WholePages {
  static constexpr std::uintptr_t size = 4096;
  std::uintptr_t first = 0, end = 0;
};

inline WholePages whole_pages(void* data, std::size_t bytes, std::size_t least) {
  WholePages out;
  if (data == nullptr || bytes < least) return out;
  const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(data);
  out.first = (begin + WholePages::size - 1) & ~(WholePages::size - 1);
  out.end = (begin + bytes) & ~(WholePages::size - 1);
  return out;
}

// Ask for transparent huge pages for the whole pages inside [data, data +
// bytes), before anything is written there. Only advice: it changes no value
// and no ownership (the memory stays the allocator's), and a refusal is
// ignored. Regions under 4 MB are left alone (they hold at most one aligned
// huge page).
inline void advise_huge_pages(void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const WholePages pages = whole_pages(data, bytes, std::size_t(4) << 20);
  if (pages.end > pages.first) {
    (void)madvise(reinterpret_cast<void*>(pages.first), pages.end - pages.first, MADV_HUGEPAGE);
  }
#else
  (void)data;
  (void)bytes;
#endif
}

// Fault in the pages of [data, data + bytes) before the first write, on
// `threads` threads, each its own slice: one madvise(MADV_POPULATE_WRITE)
// call per slice (Linux 5.14 and later) instead of a trap per page on first
// write. The pages are the ones the writes would fault in anyway, so memory
// use does not change; a kernel without it refuses the call and the pages
// fault in on first write as before. Measured on a 2-core virtual machine
// for 2.4 GB (the 1e6 x 300 cross-kernel) in a standalone program: writing
// fresh 4 KB pages 1.34-1.46 s, populating them on 2 threads and then
// writing 1.07-1.18 s. Regions under 64 MB are left alone (a few
// milliseconds at most).
inline void populate(void* data, std::size_t bytes, int threads) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  const WholePages whole = whole_pages(data, bytes, std::size_t(64) << 20);
  if (whole.end <= whole.first) return;
  const std::uintptr_t first = whole.first, page = WholePages::size;
  const std::uintptr_t pages = (whole.end - first) / page;
  const int slices = parallel::thread_count(threads);
  parallel::parallel_for(0, slices, slices, parallel::Schedule::blocks(), [&](Eigen::Index k) {
    const std::uintptr_t from = first + page * (pages * static_cast<std::uintptr_t>(k) / slices);
    const std::uintptr_t to = first + page * (pages * static_cast<std::uintptr_t>(k + 1) / slices);
    if (to > from) (void)madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
  });
#else
  (void)data;
  (void)bytes;
  (void)threads;
#endif
}

}  // namespace memory
}  // namespace krein

#endif  // KREIN_MEMORY_HPP
