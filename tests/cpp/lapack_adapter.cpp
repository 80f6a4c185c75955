// Standalone adapter for the core's LAPACK declaration (krein/symmetric_eigen.hpp):
// the Fortran dsyevr of whatever LAPACK this program is linked against.
// gfortran passes character lengths as trailing hidden arguments.
#include <cstddef>

#include "krein/symmetric_eigen.hpp"

extern "C" void dsyevr_(const char* jobz, const char* range, const char* uplo, const int* n,
                        double* a, const int* lda, const double* vl, const double* vu,
                        const int* il, const int* iu, const double* abstol, int* m, double* w,
                        double* z, const int* ldz, int* isuppz, double* work, const int* lwork,
                        int* iwork, const int* liwork, int* info, std::size_t, std::size_t,
                        std::size_t);

extern "C" void dsytrd_(const char* uplo, const int* n, double* a, const int* lda, double* d,
                        double* e, double* tau, double* work, const int* lwork, int* info,
                        std::size_t);
extern "C" void dstemr_(const char* jobz, const char* range, const int* n, double* d, double* e,
                        const double* vl, const double* vu, const int* il, const int* iu, int* m,
                        double* w, double* z, const int* ldz, const int* nzc, int* isuppz,
                        int* tryrac, double* work, const int* lwork, int* iwork, const int* liwork,
                        int* info, std::size_t, std::size_t);

extern "C" void dstebz_(const char* range, const char* order, const int* n, const double* vl,
                        const double* vu, const int* il, const int* iu, const double* abstol,
                        const double* d, const double* e, int* m, int* nsplit, double* w,
                        int* iblock, int* isplit, double* work, int* iwork, int* info,
                        std::size_t, std::size_t);
extern "C" void dstein_(const int* n, const double* d, const double* e, const int* m,
                        const double* w, const int* iblock, const int* isplit, double* z,
                        const int* ldz, double* work, int* iwork, int* ifail, int* info);
extern "C" void dsteqr_(const char* compz, const int* n, double* d, double* e, double* z,
                        const int* ldz, double* work, int* info, std::size_t);

namespace krein {
namespace lapack {

int dsyevr(char jobz, char range, char uplo, int n, double* a, int lda, double vl, double vu,
           int il, int iu, double abstol, int* m, double* w, double* z, int ldz, int* isuppz,
           double* work, int lwork, int* iwork, int liwork) {
  int info = 0;
  dsyevr_(&jobz, &range, &uplo, &n, a, &lda, &vl, &vu, &il, &iu, &abstol, m, w, z, &ldz, isuppz,
          work, &lwork, iwork, &liwork, &info, 1, 1, 1);
  return info;
}

int dsytrd(char uplo, int n, double* a, int lda, double* d, double* e, double* tau, double* work,
           int lwork) {
  int info = 0;
  dsytrd_(&uplo, &n, a, &lda, d, e, tau, work, &lwork, &info, 1);
  return info;
}

int dstemr(char jobz, char range, int n, double* d, double* e, double vl, double vu, int il, int iu,
           int* m, double* w, double* z, int ldz, int nzc, int* isuppz, int* tryrac, double* work,
           int lwork, int* iwork, int liwork) {
  int info = 0;
  dstemr_(&jobz, &range, &n, d, e, &vl, &vu, &il, &iu, m, w, z, &ldz, &nzc, isuppz, tryrac, work,
          &lwork, iwork, &liwork, &info, 1, 1);
  return info;
}

int dstebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
           const double* d, const double* e, int* m, int* nsplit, double* w, int* iblock,
           int* isplit, double* work, int* iwork) {
  int info = 0;
  dstebz_(&range, &order, &n, &vl, &vu, &il, &iu, &abstol, d, e, m, nsplit, w, iblock, isplit,
          work, iwork, &info, 1, 1);
  return info;
}

int dstein(int n, const double* d, const double* e, int m, const double* w, const int* iblock,
           const int* isplit, double* z, int ldz, double* work, int* iwork, int* ifail) {
  int info = 0;
  dstein_(&n, d, e, &m, w, iblock, isplit, z, &ldz, work, iwork, ifail, &info);
  return info;
}

int dsteqr(char compz, int n, double* d, double* e, double* z, int ldz, double* work) {
  int info = 0;
  dsteqr_(&compz, &n, d, e, z, &ldz, work, &info, 1);
  return info;
}

}  // namespace lapack
}  // namespace krein
