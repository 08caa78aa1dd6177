// ThreadSanitizer builds only (`swift build --sanitize=thread`, `make sanitize`): teaches TSan
// the hand-over of Swift's `Synchronization.Mutex`.
//
// On Linux, Swift 6.3's Mutex takes an uncontended lock with an atomic compare-and-swap that
// TSan sees, but a contended one with FUTEX_LOCK_PI / FUTEX_UNLOCK_PI system calls, in
// `_MutexHandle._lockSlow` and `_unlockSlow` (libswiftSynchronization.so): the kernel hands
// the lock to the waiter and TSan never sees the release/acquire pair, so every access to
// Mutex-protected state that was ever contended is reported as a race (a 10-line program with
// 4 threads incrementing a Mutex<Int> shows it). These definitions take the place of those two
// functions (the executable's symbols come first, as for socketbuffers.c), call the library's
// own, and tell TSan: release on the lock word before unlocking, acquire after locking.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>

void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

// `self` (the lock word, passed by address in the Swift self register) is `swift_context`.
typedef __attribute__((swiftcall)) void (*lock_slow_fn)(uint32_t, __attribute__((swift_context)) void *);
typedef __attribute__((swiftcall)) void (*unlock_slow_fn)(__attribute__((swift_context)) void *);
typedef __attribute__((swiftcall)) bool (*try_lock_slow_fn)(__attribute__((swift_context)) void *);

static lock_slow_fn real_lock_slow;
static unlock_slow_fn real_unlock_slow;
static try_lock_slow_fn real_try_lock_slow;

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"

// Resolved before main, while there is one thread.
__attribute__((constructor)) static void pb_tsan_resolve(void) {
    real_lock_slow = (lock_slow_fn)dlsym(RTLD_NEXT, LOCK_SLOW);
    real_unlock_slow = (unlock_slow_fn)dlsym(RTLD_NEXT, UNLOCK_SLOW);
    real_try_lock_slow = (try_lock_slow_fn)dlsym(RTLD_NEXT, TRY_LOCK_SLOW);
}

__attribute__((swiftcall)) void pb_tsan_lock_slow(uint32_t id, __attribute__((swift_context)) void *self) __asm__(LOCK_SLOW);
__attribute__((swiftcall)) void pb_tsan_lock_slow(uint32_t id, __attribute__((swift_context)) void *self) {
    real_lock_slow(id, self);
    __tsan_acquire(self);
}

__attribute__((swiftcall)) void pb_tsan_unlock_slow(__attribute__((swift_context)) void *self) __asm__(UNLOCK_SLOW);
__attribute__((swiftcall)) void pb_tsan_unlock_slow(__attribute__((swift_context)) void *self) {
    __tsan_release(self);
    real_unlock_slow(self);
}

__attribute__((swiftcall)) bool pb_tsan_try_lock_slow(__attribute__((swift_context)) void *self) __asm__(TRY_LOCK_SLOW);
__attribute__((swiftcall)) bool pb_tsan_try_lock_slow(__attribute__((swift_context)) void *self) {
    bool locked = real_try_lock_slow(self);
    if (locked) __tsan_acquire(self);
    return locked;
}

#endif
#endif
