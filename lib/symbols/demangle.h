/*
 * demangle.h - the qualified name of a C++ function from its Itanium ABI
 * symbol ("_ZN2ns4workEi" -> "ns::work"), so that `record --func ns::work`
 * finds it.
 *
 * Only what a function's name needs: nested names of source names, `std`
 * (St), substitutions of earlier prefixes (S_, S0_, ...), constructors and
 * destructors (C1-C3, D0-D2 give "ns::Foo::Foo", "ns::Foo::~Foo"),
 * internal linkage (L) and cv/ref qualifiers of member functions; the
 * parameter types are not needed and not read.  Templates, operators,
 * local names and clones (".cold", ".isra.0") are not demangled: the
 * function returns -1 and such symbols are matched by their mangled name
 * only.  Any byte string is safe (tests/unit/test_elfsym.c).
 */
#ifndef TL_DEMANGLE_H
#define TL_DEMANGLE_H

#include <stddef.h>

/* The qualified name of `sym` into out[len]: 0, or -1 if not a name this demangles (or it does not fit). */
int tl_demangle_name(const char *sym, char *out, size_t len);

#endif
