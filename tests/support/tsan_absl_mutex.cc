// ThreadSanitizer builds only. Debian's abseil is not built with TSan, so TSan cannot see the
// happens-before edges absl::Mutex creates and reports every access guarded by one as a race.
// This file defines absl::Mutex's lock and unlock functions in the test executable, where
// they take precedence over the shared library's: each calls the library's own function
// (found with dlsym(RTLD_NEXT)) and tells TSan about the acquire or release. Reader locks
// are annotated like writer locks, which orders readers among themselves too: readers do not
// write, so no race between them can be hidden.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/base/options.h"
#include "absl/synchronization/mutex.h"

extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);

namespace {

using Method = void (*)(absl::Mutex*);

#define AH_STRINGIFY_INNER(x) #x
#define AH_STRINGIFY(x) AH_STRINGIFY_INNER(x)

// abseil's inline namespace as it appears in mangled names ("7debian3").
std::string MangledNamespace() {
  const std::string ns = AH_STRINGIFY(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  return std::to_string(ns.size()) + ns;
}

// The shared library's definition of a symbol.
void* Symbol(const std::string& symbol) {
  void* found = dlsym(RTLD_NEXT, symbol.c_str());
  if (found == nullptr) {
    std::fprintf(stderr, "tsan_absl_mutex: %s not found\n", symbol.c_str());
    std::abort();
  }
  return found;
}

// The library's definition of absl::Mutex::<name>().
Method Real(const std::string& name) {
  return reinterpret_cast<Method>(Symbol("_ZN4absl" + MangledNamespace() + "5Mutex" +
                                         std::to_string(name.size()) + name + "Ev"));
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  static const Method real = Real("Lock");
  real(this);
  __tsan_acquire(this);
}

void Mutex::Unlock() {
  static const Method real = Real("Unlock");
  __tsan_release(this);
  real(this);
}

void Mutex::ReaderLock() {
  static const Method real = Real("ReaderLock");
  real(this);
  __tsan_acquire(this);
}

void Mutex::ReaderUnlock() {
  static const Method real = Real("ReaderUnlock");
  __tsan_release(this);
  real(this);
}

// The wait gives the mutex up and takes it back inside the library.
void CondVar::Wait(Mutex* mu) {
  using WaitMethod = void (*)(CondVar*, Mutex*);
  static const auto real = reinterpret_cast<WaitMethod>(
      Symbol("_ZN4absl" + MangledNamespace() + "7CondVar4WaitEPNS0_5MutexE"));
  __tsan_release(mu);
  real(this, mu);
  __tsan_acquire(mu);
}

ABSL_NAMESPACE_END
}  // namespace absl
