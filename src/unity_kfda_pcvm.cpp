// Unity build, part 2 of 2 (see Makevars): the glue of the kernel Fisher
// discriminants and the PCVM, compiled as one translation unit so that Rcpp,
// RcppEigen and the Eigen instances these files share are parsed, compiled and
// described in debug information once instead of once per file. (kfda's SVD
// and PCVM's EM are the two heaviest pieces of the package to compile: this
// unit alone takes about as long as part 1.)
//
// The included files keep their own names and stay valid on their own; but
// here they share one scope, so a helper at file scope (even in an anonymous
// namespace) must have a name that no other file of the package uses.
#include "rcpp_kfda.cpp"
#include "rcpp_pcvm.cpp"
