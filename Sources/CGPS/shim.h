// The one place gpstrackd touches libgps's headers.
//
// libgps changes its ABI with GPSD_API_MAJOR_VERSION. gpstrackd is written against API 11
// (gpsd 3.21/3.22, Debian 12). API 12 (gpsd 3.23+) moved `attitude` out of the anonymous union
// in `struct gps_data_t`; every access to it goes through the accessors below, so supporting
// API 12 means adding a branch here, not touching Swift code.
#ifndef GPSTRACKD_CGPS_SHIM_H
#define GPSTRACKD_CGPS_SHIM_H

#include <gps.h>
#include <errno.h>
#include <string.h>

#if GPSD_API_MAJOR_VERSION != 11
#error "gpstrackd supports libgps API 11 (gpsd 3.21-3.22, Debian 12 libgps-dev). This libgps has a different GPSD_API_MAJOR_VERSION: API 12 moved `attitude` out of the union in struct gps_data_t; adapt the accessors in Sources/CGPS/shim.h before building."
#endif

/// True heading from the last ATT report (degrees), or NaN.
static inline double gpstrackd_attitude_heading(const struct gps_data_t *data) {
    return data->attitude.heading;
}

/// The mask bit libgps sets when a read filled `attitude`.
static inline gps_mask_t gpstrackd_attitude_set(void) { return ATTITUDE_SET; }

/// The receiver's own 1-sigma latitude and longitude errors (metres) from the last GST report,
/// and that report's time; NaN (and a zero time) when it carried none. `gst` shares the union
/// with `attitude`: read it only after a read that set `gpstrackd_gst_set()`.
static inline double gpstrackd_gst_latitude_error(const struct gps_data_t *data) { return data->gst.lat_err_deviation; }
static inline double gpstrackd_gst_longitude_error(const struct gps_data_t *data) { return data->gst.lon_err_deviation; }
static inline timespec_t gpstrackd_gst_time(const struct gps_data_t *data) { return data->gst.utctime; }
static inline gps_mask_t gpstrackd_gst_set(void) { return GST_SET; }
static inline gps_mask_t gpstrackd_mode_set(void) { return MODE_SET; }
static inline gps_mask_t gpstrackd_time_set(void) { return TIME_SET; }
static inline gps_mask_t gpstrackd_latlon_set(void) { return LATLON_SET; }

/// `WATCH_ENABLE | WATCH_JSON`, the stream gpstrackd asks for.
static inline unsigned int gpstrackd_watch_json(void) { return WATCH_ENABLE | WATCH_JSON; }

/// errno as seen by the calling thread, right after a libgps call.
static inline int gpstrackd_errno(void) { return errno; }
static inline void gpstrackd_clear_errno(void) { errno = 0; }

#endif
