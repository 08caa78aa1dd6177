#ifndef PUSHBRIDGE_CHIREDIS_SHIM_H
#define PUSHBRIDGE_CHIREDIS_SHIM_H
// hiredis, the Redis (and Valkey) client, for the Redis folder (Debian: libhiredis-dev for the
// header, libhiredis0.14 at run time).
//
// Loaded the first time a Redis connection is made (dlopen), not linked: a bridge that keeps
// its state in its journal alone never maps it. The header gives the types (redisContext,
// redisReply) and constants; the functions used are called through this table, which the
// Swift side (`Hiredis`) fills once and keeps.
#include <dlfcn.h>
#include <stddef.h>
#include <sys/time.h>
#include <hiredis/hiredis.h>

struct pb_hiredis {
    redisContext *(*connect_with_timeout)(const char *ip, int port, const struct timeval tv);
    redisContext *(*connect_unix_with_timeout)(const char *path, const struct timeval tv);
    int (*set_timeout)(redisContext *c, const struct timeval tv);
    void *(*command_argv)(redisContext *c, int argc, const char **argv, const size_t *argvlen);
    void (*free_reply_object)(void *reply);
    int (*append_command_argv)(redisContext *c, int argc, const char **argv, const size_t *argvlen);
    int (*get_reply)(redisContext *c, void **reply);
    void (*free)(redisContext *c);
};

// Fills `table` from the shared library (its soname first, then the development link).
// Returns NULL on success, else dlerror()'s text. The library is never unloaded.
static inline const char *pb_hiredis_load(struct pb_hiredis *table) {
    void *lib = dlopen("libhiredis.so.0.14", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) lib = dlopen("libhiredis.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) return dlerror();
#define PB_HIREDIS_SYMBOL(field, name) \
    if ((*(void **)&table->field = dlsym(lib, name)) == NULL) return dlerror();
    PB_HIREDIS_SYMBOL(connect_with_timeout, "redisConnectWithTimeout")
    PB_HIREDIS_SYMBOL(connect_unix_with_timeout, "redisConnectUnixWithTimeout")
    PB_HIREDIS_SYMBOL(set_timeout, "redisSetTimeout")
    PB_HIREDIS_SYMBOL(command_argv, "redisCommandArgv")
    PB_HIREDIS_SYMBOL(free_reply_object, "freeReplyObject")
    PB_HIREDIS_SYMBOL(append_command_argv, "redisAppendCommandArgv")
    PB_HIREDIS_SYMBOL(get_reply, "redisGetReply")
    PB_HIREDIS_SYMBOL(free, "redisFree")
#undef PB_HIREDIS_SYMBOL
    return NULL;
}

// The context's error text (a fixed array in the struct; Swift sees it as a tuple).
static inline const char *pb_hiredis_errstr(const redisContext *c) { return c->errstr; }

// A timeval of `milliseconds`.
static inline struct timeval pb_hiredis_timeval(long milliseconds) {
    struct timeval tv = { milliseconds / 1000, (milliseconds % 1000) * 1000 };
    return tv;
}
#endif
