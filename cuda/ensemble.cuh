// The GPU ensemble path: one trajectory per thread, its state in registers for a whole chunk of
// time, structure-of-arrays global memory (coalesced), launched chunk by chunk so the host can
// report progress and sample buffers stay bounded, and split into batches that fit the device.
// The stepping is advance() of ensemble/trajectory.hpp: the code the CPU path runs.
#pragma once
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform_scan.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "../host/ensemble.hpp"
#include "check.cuh"

namespace lb::cuda {

/// Throws std::runtime_error naming the CUDA call that failed.
inline void require(cudaError_t e, const char* what) {
  const std::string m = check(e, what);
  if (!m.empty()) throw std::runtime_error(m);
}

/// A per-member input on the device: one shared value passed by value, or one per member.
template <class V> struct MemberView {
  const V* per;  ///< null when shared
  V shared;
  LB_HD V operator[](std::size_t i) const { return per ? per[i] : shared; }
};

/// Trajectory states of a batch, structure-of-arrays.
template <class P> struct StateView {
  using T = typename P::scalar;
  std::size_t n;
  T *y, *t, *h;
  long *j, *steps, *rejected;
  int* sample;
  std::uint8_t* status;

  LB_HD Trajectory<P> load(std::size_t i) const {
    Trajectory<P> s;
    for (int d = 0; d < P::size; ++d) s.y[d] = y[d * n + i];
    s.t = t[i]; s.h = h[i]; s.j = j[i]; s.steps = steps[i]; s.rejected = rejected[i]; s.sample = sample[i];
    s.status = Status(status[i]);
    return s;
  }
  LB_HD void store(std::size_t i, const Trajectory<P>& s) const {
    for (int d = 0; d < P::size; ++d) y[d * n + i] = s.y[d];
    t[i] = s.t; h[i] = s.h; j[i] = s.j; steps[i] = s.steps; rejected[i] = s.rejected; sample[i] = s.sample;
    status[i] = std::uint8_t(s.status);
  }
};

/// Sample buffers of one chunk: slot = k − first, slot-major like the host output.
template <class T> struct SampleView {
  int first;
  T *t, *y, *obs;
};

/// Per-member section bookkeeping of a batch and its hit slots (slot j of member i at [j·n + i]).
template <class T> struct HitView {
  int slots;
  long *found, *hits, *lost, *suspects;  ///< found: this chunk; hits, lost, suspects: whole run
  T *t, *y, *obs;
};

template <class P, class T>
__global__ void start_kernel(StateView<P> st, const T* y0, MemberView<T> t0, MemberView<StepControl<T>> ctl) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= st.n) return;
  P y;
  for (int d = 0; d < P::size; ++d) y[d] = y0[d * st.n + i];
  st.store(i, start(y, t0[i], ctl[i].h));
}

template <class Method, bool adaptive, class Model, class Section, class P, class T>
__global__ void chunk_kernel(StateView<P> st, MemberView<T> t0v, MemberView<T> t1v, MemberView<StepControl<T>> ctl,
                             MemberView<Model> models, ChunkPlan plan, int chunk, SampleView<T> out, Section sec,
                             HitView<T> hv) {
  constexpr int nobs = observable_count<Model>();
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= st.n) return;
  const std::size_t n = st.n;
  Trajectory<P> s = st.load(i);
  const Model m = models[i];
  const StepControl<T> c = ctl[i];
  const T t0 = t0v[i], t1 = t1v[i];
  auto record = [&](int k, const Trajectory<P>& x) {
    const std::size_t slot = std::size_t(k - out.first);
    out.t[slot * n + i] = x.t;
    for (int d = 0; d < P::size; ++d) out.y[(slot * P::size + d) * n + i] = x.y[d];
    if constexpr (nobs > 0) {
      const auto o = m.observables(x.y);
      for (int q = 0; q < nobs; ++q) out.obs[(slot * nobs + q) * n + i] = o[q];
    }
  };
  auto on_hit = [&](T t_hit, const P& y_hit, bool confirmed) {
    if (!confirmed) { ++hv.suspects[i]; return; }
    ++hv.hits[i];
    const long j = hv.found[i]++;
    if (j >= hv.slots) { ++hv.lost[i]; return; }
    hv.t[std::size_t(j) * n + i] = t_hit;
    for (int d = 0; d < P::size; ++d) hv.y[(std::size_t(j) * P::size + d) * n + i] = y_hit[d];
    if constexpr (nobs > 0) {
      const auto o = m.observables(y_hit);
      for (int q = 0; q < nobs; ++q) hv.obs[(std::size_t(j) * nobs + q) * n + i] = o[q];
    }
  };
  advance<Method, adaptive>(m, s, t0, t1, c, plan.samples, plan.pause(chunk, t0, t1), record, sec, on_hit);
  st.store(i, s);
}

/// Compacts the kept hits of a chunk into records: member i's first record at offset[i].
template <class T>
__global__ void compact_kernel(HitView<T> hv, std::size_t n, std::size_t member0, int dim, int nobs,
                               const long* offset, std::size_t* r_member, int* r_index, T* r_t, T* r_y, T* r_obs) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const long kept = hv.found[i] < hv.slots ? hv.found[i] : hv.slots;
  for (long j = 0; j < kept; ++j) {
    const std::size_t r = std::size_t(offset[i] + j);
    r_member[r] = member0 + i;
    r_index[r] = int(hv.hits[i] - hv.found[i] + j);
    r_t[r] = hv.t[std::size_t(j) * n + i];
    for (int d = 0; d < dim; ++d) r_y[r * dim + d] = hv.y[(std::size_t(j) * dim + d) * n + i];
    for (int q = 0; q < nobs; ++q) r_obs[r * nobs + q] = hv.obs[(std::size_t(j) * nobs + q) * n + i];
  }
}

/// kept = min(found, slots), for the scan.
struct KeptHits {
  long slots;
  LB_HD long operator()(long found) const { return found < slots ? found : slots; }
};

/// Fraction of each member's span done (1 when finished), for progress.
template <class T>
__global__ void done_kernel(const T* t, const std::uint8_t* status, MemberView<T> t0, MemberView<T> t1, std::size_t n,
                            double* done) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  done[i] = status[i] == std::uint8_t(Status::running) ? double((t[i] - t0[i]) / (t1[i] - t0[i])) : 1.0;
}

namespace detail {
template <class V> struct DeviceMember {
  thrust::device_vector<V> buf;
  MemberView<V> view;
  DeviceMember(const PerMember<V>& m, std::size_t b0, std::size_t nb) {
    if (m.shared()) {
      view = {nullptr, m.v[0]};
    } else {
      buf.assign(m.v.begin() + b0, m.v.begin() + b0 + nb);
      view = {thrust::raw_pointer_cast(buf.data()), m.v[0]};
    }
  }
};
}  // namespace detail

/// Name of the current device, e.g. "NVIDIA H100 80GB HBM3 (sm_90)".
inline std::string device_name() {
  int dev = 0;
  require(cudaGetDevice(&dev), "cudaGetDevice");
  cudaDeviceProp p{};
  require(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ")";
}

/// Integrates every member of e with Method on the GPU; with a section, records its crossings
/// (at most e.max_hits per member and chunk, compacted into records each chunk). Throws
/// std::invalid_argument for bad input and std::runtime_error for CUDA failures, naming the call.
template <class Method, class Model, class Section = NoSection>
EnsembleOutput<typename Ensemble<Model>::T> run_gpu(const Ensemble<Model>& e, const RunOptions& opt,
                                                    const Section& section = {}) {
  using E = Ensemble<Model>;
  using T = typename E::T;
  using P = typename E::space::point;
  constexpr int dim = E::dim, nobs = E::nobs;
  e.validate();
  if (opt.adaptive && Method::order_hat == 0) {
    throw std::invalid_argument("adaptive steps need a method with an embedded pair; this one has none");
  }
  const std::size_t n = e.size;
  EnsembleOutput<T> out;
  out.allocate(n, dim, nobs, e.samples);
  out.device = "gpu, " + device_name();
  const ChunkPlan plan = ChunkPlan::make(e.samples, opt);
  const int slots = plan.samples > 0 ? plan.per_chunk + 1 : 0;
  constexpr bool sections = !std::is_same_v<Section, NoSection>;
  const int hit_slots = sections ? e.max_hits : 0;

  // Batch size: what fits in 70 % of the free memory.
  std::size_t free_b = 0, total_b = 0;
  require(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  const std::size_t per_member = sizeof(T) * (2 * dim + 3 + std::size_t(slots + 2 * hit_slots) * (1 + dim + nobs)) +
                                 (7 + std::size_t(hit_slots)) * sizeof(long) +
                                 sizeof(int) + 1 + sizeof(double) + sizeof(Model) + sizeof(StepControl<T>) + 2 * sizeof(T);
  std::size_t batch = std::min(n, std::max<std::size_t>(1, free_b / 10 * 7 / per_member));
  if (opt.gpu_batch > 0) batch = std::min(batch, opt.gpu_batch);

  const int block = 128;
  double done_total = 0;
  for (std::size_t b0 = 0; b0 < n; b0 += batch) {
    const std::size_t nb = std::min(batch, n - b0);
    const unsigned grid = unsigned((nb + block - 1) / block);
    thrust::device_vector<T> y0(dim * nb), y(dim * nb), t(nb), h(nb);
    thrust::device_vector<long> j(nb), steps(nb), rejected(nb);
    thrust::device_vector<int> sample(nb);
    thrust::device_vector<std::uint8_t> status(nb);
    thrust::device_vector<T> st(std::size_t(slots) * nb), sy(std::size_t(slots) * dim * nb), so(std::size_t(slots) * nobs * nb);
    thrust::device_vector<double> done(nb);
    thrust::device_vector<long> found(sections ? nb : 0), hits(sections ? nb : 0), lost(sections ? nb : 0),
        suspects(sections ? nb : 0), offset(sections ? nb : 0);
    thrust::device_vector<T> ht(std::size_t(hit_slots) * nb), hy(std::size_t(hit_slots) * dim * nb),
        ho(std::size_t(hit_slots) * nobs * nb);
    const HitView<T> hv{hit_slots, thrust::raw_pointer_cast(found.data()), thrust::raw_pointer_cast(hits.data()),
                        thrust::raw_pointer_cast(lost.data()), thrust::raw_pointer_cast(suspects.data()),
                        thrust::raw_pointer_cast(ht.data()), thrust::raw_pointer_cast(hy.data()),
                        thrust::raw_pointer_cast(ho.data())};
    for (int d = 0; d < dim; ++d) {
      thrust::copy(e.y0.begin() + d * n + b0, e.y0.begin() + d * n + b0 + nb, y0.begin() + d * nb);
    }
    const detail::DeviceMember<T> t0(e.t0, b0, nb), t1(e.t1, b0, nb);
    const detail::DeviceMember<StepControl<T>> ctl(e.control, b0, nb);
    const detail::DeviceMember<Model> models(e.model, b0, nb);
    const StateView<P> view{nb, thrust::raw_pointer_cast(y.data()), thrust::raw_pointer_cast(t.data()),
                            thrust::raw_pointer_cast(h.data()), thrust::raw_pointer_cast(j.data()),
                            thrust::raw_pointer_cast(steps.data()), thrust::raw_pointer_cast(rejected.data()),
                            thrust::raw_pointer_cast(sample.data()), thrust::raw_pointer_cast(status.data())};
    start_kernel<P, T><<<grid, block>>>(view, thrust::raw_pointer_cast(y0.data()), t0.view, ctl.view);
    require(cudaGetLastError(), "start_kernel launch");

    for (int c = 0; c < plan.chunks; ++c) {
      const int first = plan.samples > 0 ? (c == 0 ? 0 : c * plan.per_chunk + 1) : 0;
      const int last = plan.samples > 0 ? std::min((c + 1) * plan.per_chunk, plan.samples - 1) : -1;
      const SampleView<T> sv{first, thrust::raw_pointer_cast(st.data()), thrust::raw_pointer_cast(sy.data()),
                             thrust::raw_pointer_cast(so.data())};
      if constexpr (sections) thrust::fill(found.begin(), found.end(), 0L);
      if (opt.adaptive) {
        if constexpr (Method::order_hat > 0) {
          chunk_kernel<Method, true, Model, Section, P, T>
              <<<grid, block>>>(view, t0.view, t1.view, ctl.view, models.view, plan, c, sv, section, hv);
        }
      } else {
        chunk_kernel<Method, false, Model, Section, P, T>
            <<<grid, block>>>(view, t0.view, t1.view, ctl.view, models.view, plan, c, sv, section, hv);
      }
      require(cudaGetLastError(), "chunk_kernel launch");
      require(cudaDeviceSynchronize(), "chunk_kernel");
      if constexpr (sections) {  // compact this chunk's kept hits into records (scan of the kept counts)
        thrust::transform_exclusive_scan(found.begin(), found.end(), offset.begin(), KeptHits{hit_slots}, 0L,
                                         thrust::plus<long>());
        const long last_off = offset.back(), last_kept = KeptHits{hit_slots}(found.back());
        const std::size_t nrec = std::size_t(last_off + last_kept);
        if (nrec > 0) {
          thrust::device_vector<std::size_t> rm(nrec);
          thrust::device_vector<int> ri(nrec);
          thrust::device_vector<T> rt(nrec), ry(nrec * dim), ro(nrec * std::size_t(nobs));
          compact_kernel<T><<<grid, block>>>(hv, nb, b0, dim, nobs, thrust::raw_pointer_cast(offset.data()),
                                             thrust::raw_pointer_cast(rm.data()), thrust::raw_pointer_cast(ri.data()),
                                             thrust::raw_pointer_cast(rt.data()), thrust::raw_pointer_cast(ry.data()),
                                             thrust::raw_pointer_cast(ro.data()));
          require(cudaGetLastError(), "compact_kernel launch");
          const std::size_t at = out.hit_t.size();
          out.hit_member.resize(at + nrec);
          out.hit_index.resize(at + nrec);
          out.hit_t.resize(at + nrec);
          out.hit_y.resize((at + nrec) * dim);
          out.hit_obs.resize((at + nrec) * nobs);
          thrust::copy(rm.begin(), rm.end(), out.hit_member.begin() + at);
          thrust::copy(ri.begin(), ri.end(), out.hit_index.begin() + at);
          thrust::copy(rt.begin(), rt.end(), out.hit_t.begin() + at);
          thrust::copy(ry.begin(), ry.end(), out.hit_y.begin() + at * dim);
          thrust::copy(ro.begin(), ro.end(), out.hit_obs.begin() + at * nobs);
        }
      }
      for (int k = first; k <= last; ++k) {  // this chunk's samples into the host output
        const std::size_t slot = std::size_t(k - first);
        thrust::copy(st.begin() + slot * nb, st.begin() + (slot + 1) * nb, out.sample_t.begin() + std::size_t(k) * n + b0);
        for (int d = 0; d < dim; ++d) {
          const std::size_t at = (slot * dim + d) * nb;
          thrust::copy(sy.begin() + at, sy.begin() + at + nb, out.sample_y.begin() + (std::size_t(k) * dim + d) * n + b0);
        }
        for (int q = 0; q < nobs; ++q) {
          const std::size_t at = (slot * nobs + q) * nb;
          thrust::copy(so.begin() + at, so.begin() + at + nb, out.sample_obs.begin() + (std::size_t(k) * nobs + q) * n + b0);
        }
      }
      if (opt.progress) {
        done_kernel<T><<<grid, block>>>(thrust::raw_pointer_cast(t.data()), thrust::raw_pointer_cast(status.data()),
                                        t0.view, t1.view, nb, thrust::raw_pointer_cast(done.data()));
        require(cudaGetLastError(), "done_kernel launch");
        const double batch_done = thrust::reduce(thrust::device, done.begin(), done.end(), 0.0);
        opt.progress((done_total + batch_done) / double(n));
      }
    }
    done_total += double(nb);
    for (int d = 0; d < dim; ++d) thrust::copy(y.begin() + d * nb, y.begin() + (d + 1) * nb, out.y.begin() + d * n + b0);
    thrust::copy(t.begin(), t.end(), out.t.begin() + b0);
    thrust::copy(steps.begin(), steps.end(), out.steps.begin() + b0);
    thrust::copy(rejected.begin(), rejected.end(), out.rejected.begin() + b0);
    thrust::copy(status.begin(), status.end(), out.status.begin() + b0);
    if constexpr (sections) {
      thrust::copy(hits.begin(), hits.end(), out.hits.begin() + b0);
      thrust::copy(lost.begin(), lost.end(), out.lost_hits.begin() + b0);
      thrust::copy(suspects.begin(), suspects.end(), out.suspects.begin() + b0);
    }
  }
  out.sort_hits();
  return out;
}

}  // namespace lb::cuda
