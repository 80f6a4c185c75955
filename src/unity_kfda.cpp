// Unity build, part 2 of 2 (see Makevars.in): the glue of the kernel Fisher
// discriminants (kfda's full and partial SVD, its class factors by TSQR, its
// projections), compiled apart because the SVDs (Eigen's BDCSVD, with the
// JacobiSVD and column-pivoting QR inside it, and the block Lanczos) are the
// heaviest code of the package to compile: about as long as all of part 1.
// Measured with tools/install_cost.sh: kfda's class factors cost half as
// much here, beside the Lanczos code's Householder QR, as in part 1.
#include "rcpp_kfda.cpp"
