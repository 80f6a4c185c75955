// Unity build, part 2 of 2 (see Makevars.in): the glue of the kernel Fisher
// discriminants (kfda's full and partial SVD, its class factors by TSQR, its
// projections), compiled apart because the SVDs (Eigen's BDCSVD, with the
// JacobiSVD and column-pivoting QR inside it, and the block Lanczos) are the
// heaviest code of the package to compile, most of this unit's time. kfda's
// class factors stay with them: they share the Householder QR and TSQR code,
// and compiled in part 1 they made that unit half again as long to compile.
#include "rcpp_kfda.cpp"
