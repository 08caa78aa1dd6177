#ifndef PUSHBRIDGE_CCURL_SHIM_H
#define PUSHBRIDGE_CCURL_SHIM_H
// libcurl for the Outputs folder (Debian: libcurl4-openssl-dev for the header, libcurl4 at run time).
//
// libcurl is loaded the first time an output needs it (dlopen), not linked: Debian's build links
// nghttp2, libssh2, LDAP, Kerberos, RTMP, libpsl, libidn2, brotli and zstd, ~1.4 MB of resident
// pages in every process that maps them. A bridge without `outputs:` never maps any of it. The
// header gives the types and constants; the functions used are called through this table, which
// the Swift side (`Curl`) fills once and keeps.
#include <dlfcn.h>
#include <time.h>
#include <curl/curl.h>

struct pb_curl {
    CURLcode (*global_init)(long flags);
    char *(*version)(void);
    const char *(*easy_strerror)(CURLcode code);
    const char *(*multi_strerror)(CURLMcode code);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    // Variadic: Swift cannot call these; the typed wrappers below do.
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    CURLMcode (*multi_setopt)(CURLM *multi, CURLMoption option, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *line);
    void (*slist_free_all)(struct curl_slist *list);
    time_t (*getdate)(const char *text, const time_t *unused);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *multi);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *left);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout_ms, int *ready);
    CURLMcode (*multi_wakeup)(CURLM *multi);
    CURLSH *(*share_init)(void);
    CURLSHcode (*share_setopt)(CURLSH *share, CURLSHoption option, ...);
    CURLSHcode (*share_cleanup)(CURLSH *share);
};

// Fills `table` from the shared library (its soname first, then the development link).
// Returns NULL on success, else dlerror()'s text. The library is never unloaded.
static inline const char *pb_curl_load(struct pb_curl *table) {
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) lib = dlopen("libcurl.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) return dlerror();
#define PB_CURL_SYMBOL(field, name) \
    if ((*(void **)&table->field = dlsym(lib, name)) == NULL) return dlerror();
    PB_CURL_SYMBOL(global_init, "curl_global_init")
    PB_CURL_SYMBOL(version, "curl_version")
    PB_CURL_SYMBOL(easy_strerror, "curl_easy_strerror")
    PB_CURL_SYMBOL(multi_strerror, "curl_multi_strerror")
    PB_CURL_SYMBOL(easy_init, "curl_easy_init")
    PB_CURL_SYMBOL(easy_cleanup, "curl_easy_cleanup")
    PB_CURL_SYMBOL(easy_setopt, "curl_easy_setopt")
    PB_CURL_SYMBOL(easy_getinfo, "curl_easy_getinfo")
    PB_CURL_SYMBOL(multi_setopt, "curl_multi_setopt")
    PB_CURL_SYMBOL(slist_append, "curl_slist_append")
    PB_CURL_SYMBOL(slist_free_all, "curl_slist_free_all")
    PB_CURL_SYMBOL(getdate, "curl_getdate")
    PB_CURL_SYMBOL(multi_init, "curl_multi_init")
    PB_CURL_SYMBOL(multi_cleanup, "curl_multi_cleanup")
    PB_CURL_SYMBOL(multi_add_handle, "curl_multi_add_handle")
    PB_CURL_SYMBOL(multi_remove_handle, "curl_multi_remove_handle")
    PB_CURL_SYMBOL(multi_perform, "curl_multi_perform")
    PB_CURL_SYMBOL(multi_info_read, "curl_multi_info_read")
    PB_CURL_SYMBOL(multi_poll, "curl_multi_poll")
    PB_CURL_SYMBOL(multi_wakeup, "curl_multi_wakeup")
    PB_CURL_SYMBOL(share_init, "curl_share_init")
    PB_CURL_SYMBOL(share_setopt, "curl_share_setopt")
    PB_CURL_SYMBOL(share_cleanup, "curl_share_cleanup")
#undef PB_CURL_SYMBOL
    return NULL;
}

// curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt and curl_share_setopt are variadic: each argument type
// gets a typed wrapper here.
static inline CURLcode pb_curl_set_long(const struct pb_curl *t, CURL *h, CURLoption o, long v) { return t->easy_setopt(h, o, v); }
static inline CURLcode pb_curl_set_string(const struct pb_curl *t, CURL *h, CURLoption o, const char *v) { return t->easy_setopt(h, o, v); }
static inline CURLcode pb_curl_set_pointer(const struct pb_curl *t, CURL *h, CURLoption o, void *v) { return t->easy_setopt(h, o, v); }
static inline CURLcode pb_curl_set_slist(const struct pb_curl *t, CURL *h, CURLoption o, struct curl_slist *v) { return t->easy_setopt(h, o, v); }
static inline CURLcode pb_curl_set_offset(const struct pb_curl *t, CURL *h, CURLoption o, curl_off_t v) { return t->easy_setopt(h, o, v); }

typedef size_t (*pb_curl_data_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode pb_curl_set_write(const struct pb_curl *t, CURL *h, pb_curl_data_callback f) { return t->easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode pb_curl_set_header(const struct pb_curl *t, CURL *h, pb_curl_data_callback f) { return t->easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }

static inline CURLcode pb_curl_get_long(const struct pb_curl *t, CURL *h, CURLINFO i, long *v) { return t->easy_getinfo(h, i, v); }

static inline CURLSHcode pb_curl_share_set_long(const struct pb_curl *t, CURLSH *s, CURLSHoption o, long v) { return t->share_setopt(s, o, v); }
static inline CURLMcode pb_curl_multi_set_long(const struct pb_curl *t, CURLM *m, CURLMoption o, long v) { return t->multi_setopt(m, o, v); }

// CURLMsg's `data` is a union; Swift sees it, but these read it plainly.
static inline CURL *pb_curl_msg_handle(CURLMsg *m) { return m->easy_handle; }
static inline int pb_curl_msg_done(CURLMsg *m) { return m->msg == CURLMSG_DONE; }
static inline CURLcode pb_curl_msg_result(CURLMsg *m) { return m->data.result; }
#endif
