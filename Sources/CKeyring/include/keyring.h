// The few Linux key-management calls (keyrings(7)) the CLI needs, as plain functions: Swift cannot call the
// variadic syscall(2), and libkeyutils is not a dependency. Every function returns -1 and sets errno on failure.
#ifndef WOTS_KEYRING_H
#define WOTS_KEYRING_H

#include <stddef.h>
#include <stdint.h>

/// The calling process's session keyring, or the user session keyring the kernel falls back to when the process has
/// none; never creates one (a keyring created here would die with this process).
int32_t wots_keyring_session(void);

/// Adds (or updates) a "user" key holding `payload` in `keyring`; returns its serial number.
int32_t wots_key_add(const char *description, const void *payload, size_t length, int32_t keyring);

/// Finds a "user" key by exact description in the keyrings the process possesses, starting at `keyring`.
int32_t wots_key_search(int32_t keyring, const char *description);

/// Copies up to `capacity` bytes of the key's payload into `buffer`; returns the payload's full length.
long wots_key_read(int32_t key, void *buffer, size_t capacity);

/// Makes the key expire `seconds` from now (0 clears the timeout).
long wots_key_set_timeout(int32_t key, unsigned int seconds);

/// Replaces the key's permission mask (KEY_POS_*, KEY_USR_*, KEY_GRP_*, KEY_OTH_* bits).
long wots_key_set_permissions(int32_t key, uint32_t permissions);

/// Invalidates the key: it disappears from every keyring at once and its payload is freed.
long wots_key_invalidate(int32_t key);

#endif
