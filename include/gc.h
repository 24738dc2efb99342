/*
 * bibop: compatibility forwarder, as installed by bdwgc: <gc.h> is
 * <gc/gc.h>.
 */
#include "gc/gc.h"
