// Package gram builds kernel (Gram) matrices: the training matrix K with
// K_ij = k(x_i, x_j) in full symmetric row-major storage, cross matrices
// k(z_i, x_j) for new points, and the double centring K_c = JKJ.
package gram
