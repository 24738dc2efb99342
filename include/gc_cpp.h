/*
 * bibop: compatibility forwarder, as installed by bdwgc: <gc_cpp.h> is
 * <gc/gc_cpp.h>.
 */
#include "gc/gc_cpp.h"
