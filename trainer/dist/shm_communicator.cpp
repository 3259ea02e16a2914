#include "dist/shm_communicator.h"

#include "dist/launch_env.h"
#include "dist/shm_barrier.h"

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <stdexcept>
#include <sys/mman.h>
#include <unistd.h>

namespace torchdeck::trainer {

namespace {

constexpr std::size_t kSlotBytes = std::size_t{4} << 20;
constexpr std::size_t kHeaderBytes = 4096;

std::vector<std::uint8_t> bytesOf(const std::string &s)
{
    return {s.begin(), s.end()};
}
std::string stringOf(const std::vector<std::uint8_t> &v)
{
    return {v.begin(), v.end()};
}

std::string hostIdentity()
{
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::string boot;
    std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
    return std::string(host) + "/" + boot;
}

class PendingDone final : public PendingCollective {
public:
    void wait() override {}
};

template <typename T>
void sumSlice(char *out, const char *slots, std::size_t stride, int world, std::size_t begin, std::size_t end)
{
    auto *result = reinterpret_cast<T *>(out);
    for (std::size_t i = begin; i < end; ++i) {
        T sum = reinterpret_cast<const T *>(slots)[i];
        for (int r = 1; r < world; ++r)
            sum += reinterpret_cast<const T *>(slots + static_cast<std::size_t>(r) * stride)[i];
        result[i] = sum;
    }
}

class ShmCommunicator final : public Communicator {
public:
    ShmCommunicator(const LaunchEnv &env, c10d::Store &store, std::chrono::milliseconds timeout)
        : rank_(env.rank)
        , world_(env.worldSize)
        , timeout_(timeout)
    {
        bytes_ = kHeaderBytes + (static_cast<std::size_t>(world_) + 1) * kSlotBytes;
        std::string name;
        int fd = -1;
        if (rank_ == 0) {
            name = "/torchdeck-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}());
            fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
            if (fd < 0 || ftruncate(fd, static_cast<off_t>(bytes_)) != 0)
                fail("cannot create shared memory " + name);
        }
        if (rank_ == 0)
            map(fd, name);
        if (rank_ == 0)
            store.set("torchdeck/shm/name", bytesOf(name));
        else
            name = stringOf(store.get("torchdeck/shm/name"));
        if (rank_ != 0) {
            fd = shm_open(name.c_str(), O_RDWR, 0600);
            if (fd < 0)
                fail("cannot open shared memory " + name);
            map(fd, name);
        }
        barrier(); // everyone has it mapped...
        if (rank_ == 0)
            shm_unlink(name.c_str()); // ...so the name can go: nothing is left behind, even after a crash
    }

    ~ShmCommunicator() override
    {
        if (base_ != nullptr)
            munmap(base_, bytes_);
    }

    int rank() const override { return rank_; }
    int size() const override { return world_; }
    std::string backend() const override { return "shm"; }
    c10::Device device() const override { return c10::Device(c10::kCPU); }

    std::unique_ptr<PendingCollective> allreduceSum(const at::Tensor &tensor) override
    {
        TORCH_CHECK(tensor.is_cpu() && tensor.is_contiguous(), "shm allreduce needs a contiguous CPU tensor");
        const auto type = tensor.scalar_type();
        TORCH_CHECK(type == at::kFloat || type == at::kDouble, "shm allreduce supports float and double");
        auto *data = static_cast<char *>(tensor.data_ptr());
        const std::size_t total = tensor.numel() * tensor.element_size();
        const std::size_t element = tensor.element_size();
        for (std::size_t offset = 0; offset < total; offset += kSlotBytes) {
            const std::size_t length = std::min(kSlotBytes, total - offset);
            std::memcpy(slot(rank_), data + offset, length);
            barrier();
            const std::size_t count = length / element;
            const std::size_t begin = count * static_cast<std::size_t>(rank_) / static_cast<std::size_t>(world_);
            const std::size_t end = count * static_cast<std::size_t>(rank_ + 1) / static_cast<std::size_t>(world_);
            if (type == at::kFloat)
                sumSlice<float>(slot(world_), slot(0), kSlotBytes, world_, begin, end);
            else
                sumSlice<double>(slot(world_), slot(0), kSlotBytes, world_, begin, end);
            barrier();
            std::memcpy(data + offset, slot(world_), length);
        }
        return std::make_unique<PendingDone>();
    }

    void broadcast(const at::Tensor &tensor, int root) override
    {
        TORCH_CHECK(tensor.is_cpu() && tensor.is_contiguous(), "shm broadcast needs a contiguous CPU tensor");
        auto *data = static_cast<char *>(tensor.data_ptr());
        const std::size_t total = tensor.numel() * tensor.element_size();
        for (std::size_t offset = 0; offset < total; offset += kSlotBytes) {
            const std::size_t length = std::min(kSlotBytes, total - offset);
            if (rank_ == root)
                std::memcpy(slot(root), data + offset, length);
            barrier();
            if (rank_ != root)
                std::memcpy(data + offset, slot(root), length);
            barrier();
        }
    }

    void barrier() override
    {
        shmBarrierWait(*reinterpret_cast<ShmBarrierState *>(base_), static_cast<std::uint32_t>(world_),
                       std::chrono::steady_clock::now() + timeout_);
    }

private:
    char *slot(int index) const { return static_cast<char *>(base_) + kHeaderBytes + index * kSlotBytes; }

    void map(int fd, const std::string &name)
    {
        base_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (base_ == MAP_FAILED) {
            base_ = nullptr;
            fail("cannot map shared memory " + name);
        }
    }

    [[noreturn]] void fail(const std::string &what) const
    {
        throw std::runtime_error(what + " (" + std::to_string(bytes_) + " bytes): " + std::strerror(errno) +
                                 "; use --backend gloo");
    }

    int rank_;
    int world_;
    std::chrono::milliseconds timeout_;
    std::size_t bytes_ = 0;
    void *base_ = nullptr;
};

} // namespace

bool allRanksOnThisHost(c10d::Store &store, const LaunchEnv &env)
{
    const std::string mine = hostIdentity();
    store.set("torchdeck/host/" + std::to_string(env.rank), bytesOf(mine));
    bool local = true;
    for (int r = 0; r < env.worldSize; ++r)
        local = local && stringOf(store.get("torchdeck/host/" + std::to_string(r))) == mine;
    return local;
}

std::unique_ptr<Communicator> makeShmCommunicator(const LaunchEnv &env, c10d::Store &store,
                                                  std::chrono::milliseconds timeout)
{
    return std::make_unique<ShmCommunicator>(env, store, timeout);
}

} // namespace torchdeck::trainer
