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

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace krein {
namespace memory {

// Ask for transparent huge pages for the whole pages inside [data, data +
// bytes), before anything is written there. Only advice: it changes no value
// and no ownership (the memory stays the allocator's), and a refusal is
// ignored. Regions under 4 MB are left alone (they hold at most one aligned
// huge page).
inline void advise_huge_pages(void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::size_t least = std::size_t(4) << 20, page = 4096;
  if (data == nullptr || bytes < least) return;
  const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + page - 1) & ~std::uintptr_t(page - 1);
  const std::uintptr_t end = (begin + bytes) & ~std::uintptr_t(page - 1);
  if (end > first) (void)madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace memory
}  // namespace krein

#endif  // KREIN_MEMORY_HPP
