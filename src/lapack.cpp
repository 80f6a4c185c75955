// Adapter: the core's LAPACK declaration (krein/symmetric_eigen.hpp) forwarded
// to the LAPACK that R is linked against.
#define USE_FC_LEN_T
#include <R_ext/Lapack.h>
#ifndef FCONE
#define FCONE
#endif

#include "krein/symmetric_eigen.hpp"

// dstemr is in every LAPACK R can use (dsyevr calls it) but not in R_ext/Lapack.h;
// dstebz, dstein and dsteqr (the fallback where dstemr fails) are.
extern "C" void F77_NAME(dstemr)(const char* jobz, const char* range, const int* n, double* d,
                                 double* e, const double* vl, const double* vu, const int* il,
                                 const int* iu, int* m, double* w, double* z, const int* ldz,
                                 const int* nzc, int* isuppz, int* tryrac, double* work,
                                 const int* lwork, int* iwork, const int* liwork,
                                 int* info FCLEN FCLEN);

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

int dsytrd(char uplo, int n, double* a, int lda, double* d, double* e, double* tau, double* work,
           int lwork) {
  int info = 0;
  F77_CALL(dsytrd)(&uplo, &n, a, &lda, d, e, tau, work, &lwork, &info FCONE);
  return info;
}

int dstemr(char jobz, char range, int n, double* d, double* e, double vl, double vu, int il, int iu,
           int* m, double* w, double* z, int ldz, int nzc, int* isuppz, int* tryrac, double* work,
           int lwork, int* iwork, int liwork) {
  int info = 0;
  F77_CALL(dstemr)(&jobz, &range, &n, d, e, &vl, &vu, &il, &iu, m, w, z, &ldz, &nzc, isuppz, tryrac,
                   work, &lwork, iwork, &liwork, &info FCONE FCONE);
  return info;
}

int dstebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
           const double* d, const double* e, int* m, int* nsplit, double* w, int* iblock,
           int* isplit, double* work, int* iwork) {
  int info = 0;
  F77_CALL(dstebz)(&range, &order, &n, &vl, &vu, &il, &iu, &abstol, d, e, m, nsplit, w, iblock,
                   isplit, work, iwork, &info FCONE FCONE);
  return info;
}

int dstein(int n, const double* d, const double* e, int m, const double* w, const int* iblock,
           const int* isplit, double* z, int ldz, double* work, int* iwork, int* ifail) {
  int info = 0;
  F77_CALL(dstein)(&n, d, e, &m, w, iblock, isplit, z, &ldz, work, iwork, ifail, &info);
  return info;
}

int dsteqr(char compz, int n, double* d, double* e, double* z, int ldz, double* work) {
  int info = 0;
  F77_CALL(dsteqr)(&compz, &n, d, e, z, &ldz, work, &info FCONE);
  return info;
}

}  // namespace lapack
}  // namespace krein
