// AES-256-GCM for fuzz-private-records, which seals fuzzed plaintext so the parser behind the tag check is reached.
#include <openssl/evp.h>
