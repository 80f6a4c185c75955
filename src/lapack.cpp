// Adapter: the core's LAPACK declaration (krein/symmetric_eigen.hpp) forwarded
// to the LAPACK that R is linked against.
#define USE_FC_LEN_T
#include <R_ext/Lapack.h>
#ifndef FCONE
#define FCONE
#endif

#include "krein/symmetric_eigen.hpp"

namespace krein {
namespace lapack {

int dsyevr(char jobz, char range, char uplo, int n, double* a, int lda, double vl, double vu,
           int il, int iu, double abstol, int* m, double* w, double* z, int ldz, int* isuppz,
           double* work, int lwork, int* iwork, int liwork) {
  int info = 0;
  F77_CALL(dsyevr)(&jobz, &range, &uplo, &n, a, &lda, &vl, &vu, &il, &iu, &abstol, m, w, z, &ldz,
                   isuppz, work, &lwork, iwork, &liwork, &info FCONE FCONE FCONE);
  return info;
}

}  // namespace lapack
}  // namespace krein
