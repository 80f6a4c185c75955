// Unity build, part 1 of 2 (see Makevars.in): the glue of the kernel engine,
// the landmark core sets, the methods built on the symmetric eigensolver and
// the Nystroem decomposition (iKFD, KQD, Ny-KQD prediction), IKNN's nearest
// neighbours, the two-class SVM dual and the PCVM,
// compiled as one translation unit so that Rcpp, RcppEigen and the Eigen
// instances these files share (the kernel engine, symmetric_eigen(), the
// Householder QR, the products, the tiled Cholesky factorisation) are parsed,
// compiled and described in debug information once instead of once per file.
//
// The included files keep their own names and stay valid on their own; but
// here they share one scope, so a helper at file scope (even in an anonymous
// namespace) must have a name that no other file of the package uses.
// lapack.cpp comes first, as it defines USE_FC_LEN_T, which must precede every
// R header; RcppExports.cpp, which says `using namespace Rcpp;`, comes last.
#include "lapack.cpp"
#include "rcpp_kernels.cpp"
#include "rcpp_landmarks.cpp"
#include "rcpp_linalg.cpp"
#include "rcpp_multiclass.cpp"
#include "rcpp_svm.cpp"
#include "rcpp_nystrom.cpp"
#include "rcpp_landmark_pass.cpp"
#include "rcpp_ikfd.cpp"
#include "rcpp_iknn.cpp"
#include "rcpp_kqd.cpp"
#include "rcpp_kqd_nystrom.cpp"
#include "rcpp_pcvm.cpp"
#include "RcppExports.cpp"
