// Scatter and gather kernels of kvctl's transfer engine.
//
// Both kernels copy a batch of regions described by an array of
// kvctl_copy descriptors (device-visible addresses: device memory, or
// pinned host memory mapped into the device's address space). One thread
// block copies one region at a time and strides over the regions by the
// grid size, so any grid size is correct. Regions whose source,
// destination and size are multiples of 16 bytes move as uint4 (16-byte
// loads and stores, four in flight per thread); anything else moves byte
// by byte.
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
// result still assembles. Both the lowered and the original PTX were run on
// an H200 (driver 580, CUDA 13.0).

struct kvctl_copy {
    unsigned long long src;
    unsigned long long dst;
    unsigned long long bytes;
};

__device__ __forceinline__ void kvctl_copy_region(const kvctl_copy d)
{
    const unsigned long long stride = blockDim.x;
    unsigned long long done = 0;
    if (((d.src | d.dst | d.bytes) & 15ull) == 0) {
        const uint4* __restrict__ s = reinterpret_cast<const uint4*>(d.src);
        uint4* __restrict__ t = reinterpret_cast<uint4*>(d.dst);
        const unsigned long long n = d.bytes >> 4;
        unsigned long long i = threadIdx.x;
        for (; i + 3 * stride < n; i += 4 * stride) {
            const uint4 a = s[i];
            const uint4 b = s[i + stride];
            const uint4 c = s[i + 2 * stride];
            const uint4 e = s[i + 3 * stride];
            t[i] = a;
            t[i + stride] = b;
            t[i + 2 * stride] = c;
            t[i + 3 * stride] = e;
        }
        for (; i < n; i += stride) {
            t[i] = s[i];
        }
        done = d.bytes;
    }
    const unsigned char* __restrict__ sb = reinterpret_cast<const unsigned char*>(d.src);
    unsigned char* __restrict__ tb = reinterpret_cast<unsigned char*>(d.dst);
    for (unsigned long long i = done + threadIdx.x; i < d.bytes; i += stride) {
        tb[i] = sb[i];
    }
}

__device__ __forceinline__ void kvctl_copy_regions(const kvctl_copy* __restrict__ descs,
                                                   unsigned long long count)
{
    for (unsigned long long r = blockIdx.x; r < count; r += gridDim.x) {
        kvctl_copy_region(descs[r]);
    }
}

// kvctl_scatter copies staging slots to GPU pages (loads).
extern "C" __global__ void kvctl_scatter(const kvctl_copy* __restrict__ descs,
                                         unsigned long long count)
{
    kvctl_copy_regions(descs, count);
}

// kvctl_gather copies GPU pages to staging slots (saves).
extern "C" __global__ void kvctl_gather(const kvctl_copy* __restrict__ descs,
                                        unsigned long long count)
{
    kvctl_copy_regions(descs, count);
}
