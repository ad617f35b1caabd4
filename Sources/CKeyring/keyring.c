#include "keyring.h"

#include <sys/syscall.h>
#include <unistd.h>

// From <linux/keyctl.h>; spelled out so the build needs no kernel headers beyond syscall numbers.
enum {
    WOTS_KEY_SPEC_SESSION_KEYRING = -3,
    WOTS_KEYCTL_GET_KEYRING_ID = 0,
    WOTS_KEYCTL_SETPERM = 5,
    WOTS_KEYCTL_SEARCH = 10,
    WOTS_KEYCTL_READ = 11,
    WOTS_KEYCTL_SET_TIMEOUT = 15,
    WOTS_KEYCTL_INVALIDATE = 21,
};

int32_t wots_keyring_session(void) {
    return (int32_t)syscall(SYS_keyctl, WOTS_KEYCTL_GET_KEYRING_ID, WOTS_KEY_SPEC_SESSION_KEYRING, 0);
}

int32_t wots_key_add(const char *description, const void *payload, size_t length, int32_t keyring) {
    return (int32_t)syscall(SYS_add_key, "user", description, payload, length, keyring);
}

int32_t wots_key_search(int32_t keyring, const char *description) {
    return (int32_t)syscall(SYS_keyctl, WOTS_KEYCTL_SEARCH, keyring, "user", description, 0);
}

long wots_key_read(int32_t key, void *buffer, size_t capacity) {
    return syscall(SYS_keyctl, WOTS_KEYCTL_READ, key, buffer, capacity);
}

long wots_key_set_timeout(int32_t key, unsigned int seconds) {
    return syscall(SYS_keyctl, WOTS_KEYCTL_SET_TIMEOUT, key, seconds);
}

long wots_key_set_permissions(int32_t key, uint32_t permissions) {
    return syscall(SYS_keyctl, WOTS_KEYCTL_SETPERM, key, permissions);
}

long wots_key_invalidate(int32_t key) {
    return syscall(SYS_keyctl, WOTS_KEYCTL_INVALIDATE, key);
}
