// The processor's prefetch hint, which Swift cannot reach. Everything is
// in the header, inline; SwiftPM wants a source file in a C target.
#include "CPrefetch.h"
