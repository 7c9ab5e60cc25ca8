#ifndef OVERLAYD_CHARFBUZZ_SHIM_H
#define OVERLAYD_CHARFBUZZ_SHIM_H

/* HarfBuzz from Debian (libharfbuzz-dev), for measuring text. Only TextMeasure imports this
   module, and privately: no HarfBuzz type reaches any other module's API. Swift calls every
   function it needs directly, so there is nothing to wrap. */
#include <hb.h>

#endif
