// libcurl for the Outputs folder (Debian: libcurl4-openssl-dev, pkg-config libcurl).
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic: Swift cannot call
// them, so each argument type gets a typed static inline wrapper here.
#include <curl/curl.h>

static inline CURLcode pb_curl_set_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode pb_curl_set_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode pb_curl_set_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode pb_curl_set_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode pb_curl_set_offset(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }

typedef size_t (*pb_curl_data_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode pb_curl_set_write(CURL *h, pb_curl_data_callback f) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode pb_curl_set_header(CURL *h, pb_curl_data_callback f) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }

static inline CURLcode pb_curl_get_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode pb_curl_get_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode pb_curl_get_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }

static inline CURLMcode pb_curl_multi_set_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

// CURLMsg's `data` is a union; Swift sees it, but these read it plainly.
static inline CURL *pb_curl_msg_handle(CURLMsg *m) { return m->easy_handle; }
static inline int pb_curl_msg_done(CURLMsg *m) { return m->msg == CURLMSG_DONE; }
static inline CURLcode pb_curl_msg_result(CURLMsg *m) { return m->data.result; }
