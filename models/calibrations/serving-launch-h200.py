# podplan: serving launch-cost and small-M GEMM measurement, one lent NVIDIA H200 141GB
# (SM max 1980 MHz, torch 2.11.0+cu130), CUDA-event timing after warm-up, bf16.
# Command: python3 models/calibrations/serving-launch-h200.py > models/calibrations/serving-launch-h200.txt
# The output of that run is serving-launch-h200.txt (committed unchanged).
import torch,time
d='cuda';t=torch.bfloat16
def tm(f,n=200):
    for _ in range(10):f()
    torch.cuda.synchronize();s=torch.cuda.Event(True);e=torch.cuda.Event(True);s.record()
    for _ in range(n):f()
    e.record();torch.cuda.synchronize();return s.elapsed_time(e)/n*1e3
x=torch.zeros(1,device=d)
print('empty-kernel eager us/launch',tm(lambda:x.add_(1),2000))
g=torch.cuda.CUDAGraph();s=torch.cuda.Stream()
with torch.cuda.stream(s):
    for _ in range(3):x.add_(1)
torch.cuda.synchronize()
with torch.cuda.graph(g):
    for _ in range(100):x.add_(1)
print('empty-kernel in graph us/kernel',tm(lambda:g.replay(),200)/100)
a=torch.empty(int(4e9)//2,dtype=t,device=d);b=torch.empty_like(a)
us=tm(lambda:b.copy_(a),20);print('D2D copy 4GB GB/s (r+w)',2*4e9/us/1e3)
for K,N in [(4096,14336),(8192,28672),(8192,8192)]:
    W=torch.randn(K,N,dtype=t,device=d)
    for M in [1,8,32,128,256,512,1024,4096]:
        A=torch.randn(M,K,dtype=t,device=d)
        us=tm(lambda:A@W,50);fl=2*M*K*N/us/1e6;bw=(K*N*2+M*K*2+M*N*2)/us/1e3
        print(f'GEMM M={M} K={K} N={N} us={us:.1f} TFLOPS={fl:.0f} GB/s={bw:.0f}')
