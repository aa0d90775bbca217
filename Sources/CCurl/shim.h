// libcurl's easy interface for the tracker client. curl_easy_setopt and curl_easy_getinfo are
// variadic, which Swift cannot call; these typed wrappers can.
#ifndef GPSTRACKD_CCURL_SHIM_H
#define GPSTRACKD_CCURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*gpstrackd_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode gpstrackd_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gpstrackd_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gpstrackd_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gpstrackd_curl_set_callbacks(CURL *handle, gpstrackd_curl_data_callback body,
                                                    gpstrackd_curl_data_callback header, void *context) {
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, body);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, context);
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, header);
    return curl_easy_setopt(handle, CURLOPT_HEADERDATA, context);
}

static inline CURLcode gpstrackd_curl_set_body(CURL *handle, const void *data, long length) {
    curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, length);
    return curl_easy_setopt(handle, CURLOPT_POSTFIELDS, data);
}

static inline long gpstrackd_curl_response_code(CURL *handle) {
    long code = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

#endif
