#ifndef OVERLAYD_CJWT_SHIM_H
#define OVERLAYD_CJWT_SHIM_H

/* libjwt 1.10 from Debian (libjwt-dev), for verifying signed tokens. Only SignedToken imports this
   module, and privately. Swift calls jwt_decode and its getters directly: nothing to wrap. */
#include <jwt.h>

#endif
