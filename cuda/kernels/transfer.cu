// Scatter and gather kernels of kvctl's transfer engine.
//
// Both kernels copy a batch of regions described by an array of
// kvctl_copy descriptors. Descriptors and regions are device-visible
// addresses: device memory, or pinned host memory mapped into the device's
// address space (the Copier writes the descriptors into mapped pinned host
// memory, so a launch needs no upload). One warp copies one descriptor at a
// time and strides over the descriptors by the number of warps in the grid,
// so any grid size is correct. The Copier cuts regions into pieces of at
// most 16 KiB, so a batch of large pages still spreads over many warps.
// Regions whose source, destination and size are multiples of 16 bytes move
// as uint4, eight 16-byte loads in flight per thread (4 KiB per warp) before
// the stores, which keeps enough reads outstanding to cover the latency of
// reading host memory over PCIe; anything else moves byte by byte.
//
// Build the committed PTX (embedded by cuda/kernels.go) with:
//
//   nvcc -ptx -arch=compute_75 -o cuda/kernels/transfer.ptx cuda/kernels/transfer.cu
//   sed -E -i 's/^\.version [0-9.]+/.version 7.0/' cuda/kernels/transfer.ptx
//   ptxas -arch=sm_75 cuda/kernels/transfer.ptx -o /dev/null
//
// compute_75 is the oldest virtual architecture CUDA 13's nvcc targets; the
// driver JIT-compiles the PTX for the GPU at hand (Turing and newer). nvcc
// 13 stamps the PTX with ISA version 9.0, which only drivers of CUDA 13
// accept; the kernels use nothing newer than ISA 7.0, so the stamp is
// lowered to 7.0 (CUDA 11.0 drivers and later JIT it) and ptxas checks the
// result still assembles.

struct kvctl_copy {
    unsigned long long src;
    unsigned long long dst;
    unsigned long long bytes;
};

#define KVCTL_WARP 32
#define KVCTL_UNROLL 8

__device__ __forceinline__ void kvctl_copy_aligned(const uint4* __restrict__ s,
                                                   uint4* __restrict__ t,
                                                   unsigned long long n,
                                                   unsigned lane)
{
    unsigned long long i = lane;
    for (; i + (KVCTL_UNROLL - 1) * KVCTL_WARP < n; i += KVCTL_UNROLL * KVCTL_WARP) {
        uint4 v[KVCTL_UNROLL];
#pragma unroll
        for (int k = 0; k < KVCTL_UNROLL; k++) {
            v[k] = s[i + k * KVCTL_WARP];
        }
#pragma unroll
        for (int k = 0; k < KVCTL_UNROLL; k++) {
            t[i + k * KVCTL_WARP] = v[k];
        }
    }
    for (; i < n; i += KVCTL_WARP) {
        t[i] = s[i];
    }
}

__device__ __forceinline__ void kvctl_copy_region(const kvctl_copy d, unsigned lane)
{
    if (((d.src | d.dst | d.bytes) & 15ull) == 0) {
        kvctl_copy_aligned(reinterpret_cast<const uint4*>(d.src),
                           reinterpret_cast<uint4*>(d.dst), d.bytes >> 4, lane);
        return;
    }
    const unsigned char* __restrict__ sb = reinterpret_cast<const unsigned char*>(d.src);
    unsigned char* __restrict__ tb = reinterpret_cast<unsigned char*>(d.dst);
    for (unsigned long long i = lane; i < d.bytes; i += KVCTL_WARP) {
        tb[i] = sb[i];
    }
}

__device__ __forceinline__ void kvctl_copy_regions(const kvctl_copy* __restrict__ descs,
                                                   unsigned long long count)
{
    const unsigned long long warp = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) / KVCTL_WARP;
    const unsigned long long warps = (gridDim.x * (unsigned long long)blockDim.x) / KVCTL_WARP;
    const unsigned lane = threadIdx.x % KVCTL_WARP;
    for (unsigned long long r = warp; r < count; r += warps) {
        kvctl_copy_region(descs[r], lane);
    }
}

// kvctl_scatter copies staging slots (or pool memory) to GPU pages (loads).
extern "C" __global__ void kvctl_scatter(const kvctl_copy* __restrict__ descs,
                                         unsigned long long count)
{
    kvctl_copy_regions(descs, count);
}

// kvctl_gather copies GPU pages to staging slots (or pool memory) (saves).
extern "C" __global__ void kvctl_gather(const kvctl_copy* __restrict__ descs,
                                        unsigned long long count)
{
    kvctl_copy_regions(descs, count);
}
