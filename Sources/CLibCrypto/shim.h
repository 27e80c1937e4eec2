// OpenSSL's big numbers (libssl-dev), for SRP's modular exponentiation only.
#include <openssl/bn.h>
