#ifndef PUSHBRIDGE_CMICROHTTPD_SHIM_H
#define PUSHBRIDGE_CMICROHTTPD_SHIM_H
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <stddef.h>
#include <dlfcn.h>
#include <microhttpd.h>

// libmicrohttpd is loaded when the metrics endpoint starts (dlopen), not linked: Debian's
// build links GnuTLS and its dependencies (p11-kit, nettle, gmp, libtasn1, libidn2, ...),
// ~2.4 MB of resident pages in every process that maps them. A bridge without
// `monitoring.http` never maps any of it. The header above still gives the types and
// constants; the few functions used are called through this table.
struct pb_mhd {
    struct MHD_Daemon *(*start_daemon_va)(unsigned int flags, uint16_t port,
                                           MHD_AcceptPolicyCallback apc, void *apc_cls,
                                           MHD_AccessHandlerCallback dh, void *dh_cls, va_list ap);
    void (*stop_daemon)(struct MHD_Daemon *daemon);
    struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
                                                        enum MHD_ResponseMemoryMode mode);
    void (*destroy_response)(struct MHD_Response *response);
    enum MHD_Result (*add_response_header)(struct MHD_Response *response, const char *header,
                                           const char *content);
    enum MHD_Result (*queue_response)(struct MHD_Connection *connection, unsigned int status_code,
                                      struct MHD_Response *response);
    // Server-Sent Events (/api/events): a callback response on a suspendable connection.
    struct MHD_Response *(*create_response_from_callback)(uint64_t size, size_t block_size,
                                                          MHD_ContentReaderCallback crc, void *crc_cls,
                                                          MHD_ContentReaderFreeCallback crfc);
    void (*suspend_connection)(struct MHD_Connection *connection);
    void (*resume_connection)(struct MHD_Connection *connection);
    // Request headers (the subscription API's Authorization).
    const char *(*lookup_connection_value)(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                                           const char *key);
    // The client's address (the access check's failure table). Variadic: Swift cannot call it
    // through this pointer, so `pb_mhd_client_address` below does.
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *connection,
                                                           enum MHD_ConnectionInfoType info_type, ...);
    // A stored attachment's file (/attachments/…): sent from the descriptor, which the
    // response owns and closes.
    struct MHD_Response *(*create_response_from_fd)(uint64_t size, int fd);
};

// Fills `table` from the shared library (its soname first, then the development link).
// Returns NULL on success, else dlerror()'s text. The library is never unloaded.
static inline const char *pb_mhd_load(struct pb_mhd *table) {
    void *lib = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) lib = dlopen("libmicrohttpd.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) return dlerror();
#define PB_MHD_SYMBOL(field, name) \
    if ((*(void **)&table->field = dlsym(lib, name)) == NULL) return dlerror();
    PB_MHD_SYMBOL(start_daemon_va, "MHD_start_daemon_va")
    PB_MHD_SYMBOL(stop_daemon, "MHD_stop_daemon")
    PB_MHD_SYMBOL(create_response_from_buffer, "MHD_create_response_from_buffer")
    PB_MHD_SYMBOL(destroy_response, "MHD_destroy_response")
    PB_MHD_SYMBOL(add_response_header, "MHD_add_response_header")
    PB_MHD_SYMBOL(queue_response, "MHD_queue_response")
    PB_MHD_SYMBOL(create_response_from_callback, "MHD_create_response_from_callback")
    PB_MHD_SYMBOL(suspend_connection, "MHD_suspend_connection")
    PB_MHD_SYMBOL(resume_connection, "MHD_resume_connection")
    PB_MHD_SYMBOL(lookup_connection_value, "MHD_lookup_connection_value")
    PB_MHD_SYMBOL(get_connection_info, "MHD_get_connection_info")
    PB_MHD_SYMBOL(create_response_from_fd, "MHD_create_response_from_fd")
#undef PB_MHD_SYMBOL
    return NULL;
}

// The socket address of `connection`'s client (IPv4 or IPv6), or NULL. libmicrohttpd owns it
// for as long as the connection lives.
static inline const struct sockaddr *pb_mhd_client_address(const struct pb_mhd *table,
                                                           struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = table->get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

// The content reader's "end of stream" and "error: close now" results (macros in the header).
static const ssize_t pb_mhd_reader_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t pb_mhd_reader_end_with_error = MHD_CONTENT_READER_END_WITH_ERROR;
static const uint64_t pb_mhd_size_unknown = MHD_SIZE_UNKNOWN;
#endif
