// Tests of sgemm_portable (tensor/gemm_portable.cpp), the plain C++ blocked loop that is the web
// build's sgemm, held to OpenBLAS's cblas_sgemm and to the reference loop natively: all four
// transpose combinations, alpha and beta, and shapes at and across every block and tile edge
// (MR 4, NR 16, MC 64, KC 256, NC 128), the chapter's model's products, and random ones.
// The tolerance is float summation's own bound: a sum of K products computed in float, in any order
// and with or without fused multiply-add, is within (K + 1) u S of the exact one, where u = 2^-24 and
// S = |alpha| sum_k |a_ik b_kj| + |beta c_ij| (the same sum with every term made positive); two such
// results, ours and OpenBLAS's, are within twice that of each other. Each element is held to
// 2 (K + 2) u S (one more rounding for alpha and beta).
// Leaves out speed (bench/) and the web build itself (make test-web runs it under node).
#include "tests/catch.hpp"

#include <cblas.h>

#include <cmath>
#include <string>
#include <vector>

#include "tensor/gemm.hpp"
#include "tensor/random.hpp"

using namespace wai;

namespace {

void cblas(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B, float beta,
           float* C) {
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, static_cast<int>(M),
                static_cast<int>(N), static_cast<int>(K), alpha, A, static_cast<int>(trans_a ? M : K), B,
                static_cast<int>(trans_b ? K : N), beta, C, static_cast<int>(N));
}

struct Product {
    int64_t M, N, K;
};

// One product three ways from the same A, B and C; fails with the worst element against the bound.
// Returns the largest |portable - cblas| / bound seen (below 1 passes).
double check_product(const Product& p, bool trans_a, bool trans_b, float alpha, float beta, Generator& g) {
    std::vector<float> A(static_cast<size_t>(p.M * p.K)), B(static_cast<size_t>(p.K * p.N)), C(static_cast<size_t>(p.M * p.N));
    for (float& x : A) x = g.uniform(-1.0f, 1.0f);
    for (float& x : B) x = g.uniform(-1.0f, 1.0f);
    for (float& x : C) x = g.uniform(-1.0f, 1.0f);
    std::vector<float> ours = C, blas = C, reference = C;
    sgemm_portable(trans_a, trans_b, p.M, p.N, p.K, alpha, A.data(), B.data(), beta, ours.data());
    cblas(trans_a, trans_b, p.M, p.N, p.K, alpha, A.data(), B.data(), beta, blas.data());
    sgemm_reference(trans_a, trans_b, p.M, p.N, p.K, alpha, A.data(), B.data(), beta, reference.data());
    const double u = std::ldexp(1.0, -24);
    double worst = 0.0;
    int64_t worst_at = 0;
    for (int64_t i = 0; i < p.M; ++i)
        for (int64_t j = 0; j < p.N; ++j) {
            double magnitude = 0.0;
            for (int64_t k = 0; k < p.K; ++k)
                magnitude += std::fabs(static_cast<double>(trans_a ? A[k * p.M + i] : A[i * p.K + k]) *
                                       static_cast<double>(trans_b ? B[j * p.K + k] : B[k * p.N + j]));
            const size_t at = static_cast<size_t>(i * p.N + j);
            const double S = std::fabs(alpha) * magnitude + (beta == 0.0f ? 0.0 : std::fabs(beta * C[at]));
            const double bound = 2.0 * static_cast<double>(p.K + 2) * u * S + 1e-30;
            const double ratio = std::max(std::fabs(static_cast<double>(ours[at]) - blas[at]),
                                          std::fabs(static_cast<double>(ours[at]) - reference[at])) / bound;
            if (!(ratio <= worst)) worst = ratio, worst_at = static_cast<int64_t>(at);
        }
    INFO("M " << p.M << " N " << p.N << " K " << p.K << (trans_a ? " A^T" : " A") << (trans_b ? " B^T" : " B") << " alpha "
              << alpha << " beta " << beta << ": element " << worst_at << " ours " << ours[static_cast<size_t>(worst_at)]
              << " cblas_sgemm " << blas[static_cast<size_t>(worst_at)] << " reference " << reference[static_cast<size_t>(worst_at)]
              << ", " << worst << " of the bound");
    CHECK(worst < 1.0);
    return worst;
}

}  // namespace

TEST_CASE("sgemm_portable agrees with cblas_sgemm across block and tile edges, all transposes, alpha and beta",
          "[tensor][gemm]") {
    const bool trans_a = GENERATE(false, true);
    const bool trans_b = GENERATE(false, true);
    Generator g(31);
    std::vector<Product> products;
    for (int64_t M : {1, 3, 4, 5, 63, 64, 65, 131})
        for (int64_t N : {1, 15, 16, 17, 127, 128, 129})
            for (int64_t K : {1, 7, 255, 257}) products.push_back({M, N, K});
    for (const Product& p : {Product{2, 3, 256}, Product{5, 300, 600}, Product{70, 20, 513}, Product{9, 9, 0}})
        products.push_back(p);
    // The chapter's model (B 64, T 32, D 64, MLP 256, 2 heads of 32): its layers' products and
    // their gradients, and one attention head's.
    for (const Product& p : {Product{2048, 64, 64}, Product{2048, 256, 64}, Product{2048, 64, 256}, Product{64, 64, 2048},
                             Product{256, 64, 2048}, Product{32, 32, 32}})
        products.push_back(p);
    for (int i = 0; i < 20; ++i)
        products.push_back({1 + g.integer(150), 1 + g.integer(200), g.integer(400)});
    const float alphas[] = {1.0f, 0.5f, -2.0f};
    const float betas[] = {0.0f, 1.0f, 0.5f, -1.0f};
    double worst = 0.0;
    for (size_t i = 0; i < products.size(); ++i)
        worst = std::max(worst, check_product(products[i], trans_a, trans_b, alphas[i % 3], betas[(i / 3) % 4], g));
    INFO("worst: " << worst << " of the bound");
    CHECK(worst < 1.0);
}

TEST_CASE("sgemm_portable: beta 0 overwrites C (a NaN in it does not leak); alpha 0 and K 0 leave beta * C",
          "[tensor][gemm]") {
    const bool trans_a = GENERATE(false, true);
    const bool trans_b = GENERATE(false, true);
    const int64_t M = 5, N = 19, K = 9;
    Generator g(32);
    std::vector<float> A(M * K), B(K * N), C(M * N);
    for (float& x : A) x = g.uniform(-1.0f, 1.0f);
    for (float& x : B) x = g.uniform(-1.0f, 1.0f);
    for (float& x : C) x = g.uniform(-1.0f, 1.0f);
    std::vector<float> ours(M * N, std::nanf("")), blas(M * N);
    sgemm_portable(trans_a, trans_b, M, N, K, 1.0f, A.data(), B.data(), 0.0f, ours.data());
    cblas(trans_a, trans_b, M, N, K, 1.0f, A.data(), B.data(), 0.0f, blas.data());
    for (size_t i = 0; i < ours.size(); ++i) CHECK(ours[i] == Approx(blas[i]).margin(1e-5));
    for (const int64_t k : {int64_t{0}, K}) {
        const float alpha = k == 0 ? 1.0f : 0.0f;
        ours = C;
        sgemm_portable(trans_a, trans_b, M, N, k, alpha, A.data(), B.data(), -0.5f, ours.data());
        for (size_t i = 0; i < ours.size(); ++i) CHECK(ours[i] == -0.5f * C[i]);
    }
}
