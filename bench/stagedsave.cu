// The physical limit of a staged save: the GPU gathers scattered device pages
// into a device slot and copies it into a pinned staging slot with one
// contiguous cudaMemcpyAsync; T persistent host threads then copy the slot's
// pages out into scattered pool pages (ordinary pageable memory), while the
// device gathers and copies the next slots (four slots of 16 MiB in turn).
// Prints the contiguous pinned device-to-host baseline, the host copy rate
// alone (T threads, pinned -> pool) and the staged save rate, in GB/s.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <thread>
#include <atomic>
#include <chrono>
#include <cuda_runtime.h>
#define CK(x) do{cudaError_t ce_=(x); if(ce_!=cudaSuccess){printf("ERR %s: %s\n",#x,cudaGetErrorString(ce_)); exit(1);}}while(0)
__global__ void gather(const uint4* __restrict__ src, uint4* dst, const size_t* offs, size_t pageWords, int n){
  for(int p=blockIdx.x;p<n;p+=gridDim.x){ const uint4* s=src+offs[p]/16; uint4* d=dst+(size_t)p*pageWords;
    for(size_t i=threadIdx.x;i<pageWords;i+=blockDim.x) d[i]=s[i]; } }
static double now(){ return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
struct Crew {  // persistent workers copying pages [b,e) of a slot out to the pool, 8 pages a grab
  int T; std::vector<std::thread> th; std::atomic<long> gen{0}; std::atomic<int> done{0}; std::atomic<bool> quit{false};
  std::atomic<size_t> next{0}; size_t b=0,e=0,pg=0; const size_t* dst=nullptr; char* pool=nullptr; const char* src=nullptr;
  void work(){ for(;;){ size_t i=next.fetch_add(8); if(i>=e) break; size_t ee=i+8<e?i+8:e; for(size_t j=i;j<ee;j++) memcpy(pool+dst[j], src+(j-b)*pg, pg);} }
  Crew(int t):T(t){ for(int k=0;k<T-1;k++) th.emplace_back([this]{ long seen=0; for(;;){ long g; while((g=gen.load())==seen){ if(quit) return; } seen=g; work(); done.fetch_add(1);} }); }
  void run(size_t b_,size_t e_,const char* s){ b=b_; e=e_; src=s; next=b; done=0; gen.fetch_add(1); work(); while(done.load()<T-1){} }
  ~Crew(){ quit=true; gen.fetch_add(1); for(auto&x:th) x.join(); }
};
int main(int argc,char**argv){
  const size_t TOT=1ull<<30, SLOT=16ull<<20; const int NSLOT=4;
  int T = argc>1 ? atoi(argv[1]) : 16;
  char* pool=(char*)aligned_alloc(4096, TOT*2); memset(pool,1,TOT*2);
  char* g; CK(cudaMalloc(&g,TOT)); CK(cudaMemset(g,2,TOT));
  char* stage; CK(cudaHostAlloc(&stage,SLOT*NSLOT,cudaHostAllocDefault)); memset(stage,0,SLOT*NSLOT);
  char* gst; CK(cudaMalloc(&gst,SLOT*NSLOT));
  size_t* doffs; CK(cudaMalloc(&doffs,sizeof(size_t)*(TOT/4096)));
  cudaStream_t st[NSLOT]; cudaEvent_t ev[NSLOT];
  for(int i=0;i<NSLOT;i++){ CK(cudaStreamCreateWithFlags(&st[i],cudaStreamNonBlocking)); CK(cudaEventCreateWithFlags(&ev[i],cudaEventDisableTiming)); CK(cudaEventRecord(ev[i],st[i])); }
  { char* h; CK(cudaHostAlloc(&h,TOT,0)); CK(cudaMemcpy(h,g,TOT,cudaMemcpyDeviceToHost)); double t=now(); for(int k=0;k<3;k++) CK(cudaMemcpy(h,g,TOT,cudaMemcpyDeviceToHost)); printf("baseline contiguous pinned D2H: %.1f GB/s\n", 3*TOT/(now()-t)/1e9); cudaFreeHost(h); }
  Crew crew(T);
  printf("threads %d\n%8s %10s %10s\n",T,"page","hostcopy","staged");
  for(size_t pg=4096; pg<=(1ull<<20); pg*=4){
    size_t n=TOT/pg, pslots=2*n; std::vector<size_t> dst(n), offs(n);
    for(size_t i=0;i<n;i++){ dst[i]=((i*2654435761ull)%pslots)*pg; offs[i]=((i*7919ull)%n)*pg; }
    CK(cudaMemcpy(doffs,offs.data(),sizeof(size_t)*n,cudaMemcpyHostToDevice));
    crew.dst=dst.data(); crew.pool=pool; crew.pg=pg;
    size_t per=SLOT/pg, nslots=(n+per-1)/per; double best_h=0,best_s=0;
    for(int rep=0;rep<3;rep++){ double t=now(); for(size_t s=0;s<nslots;s++){ size_t b=s*per,e=b+per<n?b+per:n; crew.run(b,e,stage+(s%NSLOT)*SLOT);} double r=TOT/(now()-t)/1e9; if(r>best_h) best_h=r; }
    auto queue=[&](size_t s){ int k=s%NSLOT; size_t b=s*per, e=b+per<n?b+per:n;
      gather<<<132,512,0,st[k]>>>((const uint4*)g,(uint4*)(gst+k*SLOT),doffs+b,pg/16,(int)(e-b));
      CK(cudaMemcpyAsync(stage+k*SLOT, gst+k*SLOT, (e-b)*pg, cudaMemcpyDeviceToHost, st[k]));
      CK(cudaEventRecord(ev[k],st[k])); };
    for(int rep=0;rep<3;rep++){
      double t=now();
      for(size_t s=0;s<nslots && s<(size_t)NSLOT;s++) queue(s);
      for(size_t s=0;s<nslots;s++){
        int k=s%NSLOT; CK(cudaEventSynchronize(ev[k]));
        size_t b=s*per, e=b+per<n?b+per:n;
        crew.run(b,e,stage+k*SLOT);
        if(s+NSLOT<nslots) queue(s+NSLOT);
      }
      CK(cudaDeviceSynchronize()); double r=TOT/(now()-t)/1e9; if(r>best_s) best_s=r;
    }
    printf("%7zuK %10.1f %10.1f\n",pg/1024,best_h,best_s);
  }
  return 0;
}
