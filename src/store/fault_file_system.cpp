#include "store/fault_file_system.hpp"

#include <string>
#include <utility>

namespace foyer::store::detail {
namespace {

using rocksdb::DataVerificationInfo;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

class fault_writable_file final : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  fault_writable_file(std::unique_ptr<rocksdb::FSWritableFile> file,
                      std::shared_ptr<fault_injection> faults)
      : FSWritableFileOwnerWrapper(std::move(file)), faults_(std::move(faults)) {}

  IOStatus Append(const Slice& data, const IOOptions& options, IODebugContext* dbg) override {
    if (full()) return no_space();
    return FSWritableFileOwnerWrapper::Append(data, options, dbg);
  }
  IOStatus Append(const Slice& data, const IOOptions& options,
                  const DataVerificationInfo& info, IODebugContext* dbg) override {
    if (full()) return no_space();
    return FSWritableFileOwnerWrapper::Append(data, options, info, dbg);
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& options,
                            IODebugContext* dbg) override {
    if (full()) return no_space();
    return FSWritableFileOwnerWrapper::PositionedAppend(data, offset, options, dbg);
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& options,
                            const DataVerificationInfo& info, IODebugContext* dbg) override {
    if (full()) return no_space();
    return FSWritableFileOwnerWrapper::PositionedAppend(data, offset, options, info, dbg);
  }
  IOStatus Allocate(uint64_t offset, uint64_t len, const IOOptions& options,
                    IODebugContext* dbg) override {
    if (full()) return no_space();
    return FSWritableFileOwnerWrapper::Allocate(offset, len, options, dbg);
  }
  IOStatus Sync(const IOOptions& options, IODebugContext* dbg) override {
    if (full()) return no_space();
    return FSWritableFileOwnerWrapper::Sync(options, dbg);
  }
  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    if (full()) return no_space();
    return FSWritableFileOwnerWrapper::Fsync(options, dbg);
  }
  IOStatus RangeSync(uint64_t offset, uint64_t nbytes, const IOOptions& options,
                     IODebugContext* dbg) override {
    if (full()) return no_space();
    return FSWritableFileOwnerWrapper::RangeSync(offset, nbytes, options, dbg);
  }

 private:
  bool full() const { return faults_->disk_full.load(std::memory_order_relaxed); }
  static IOStatus no_space() { return IOStatus::NoSpace("simulated full disk"); }

  std::shared_ptr<fault_injection> faults_;
};

class fault_file_system final : public rocksdb::FileSystemWrapper {
 public:
  fault_file_system(std::shared_ptr<rocksdb::FileSystem> base,
                    std::shared_ptr<fault_injection> faults)
      : FileSystemWrapper(std::move(base)), faults_(std::move(faults)) {}

  const char* Name() const override { return "foyer_fault_file_system"; }

  IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                           std::unique_ptr<rocksdb::FSWritableFile>* result,
                           IODebugContext* dbg) override {
    return wrap(FileSystemWrapper::NewWritableFile(name, options, result, dbg), result);
  }
  IOStatus ReopenWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                              std::unique_ptr<rocksdb::FSWritableFile>* result,
                              IODebugContext* dbg) override {
    return wrap(FileSystemWrapper::ReopenWritableFile(name, options, result, dbg), result);
  }
  IOStatus ReuseWritableFile(const std::string& name, const std::string& old_name,
                             const rocksdb::FileOptions& options,
                             std::unique_ptr<rocksdb::FSWritableFile>* result,
                             IODebugContext* dbg) override {
    return wrap(FileSystemWrapper::ReuseWritableFile(name, old_name, options, result, dbg),
                result);
  }

 private:
  IOStatus wrap(IOStatus status, std::unique_ptr<rocksdb::FSWritableFile>* result) const {
    if (status.ok()) *result = std::make_unique<fault_writable_file>(std::move(*result), faults_);
    return status;
  }

  std::shared_ptr<fault_injection> faults_;
};

}  // namespace

std::shared_ptr<rocksdb::FileSystem> make_fault_file_system(
    std::shared_ptr<rocksdb::FileSystem> base, std::shared_ptr<fault_injection> faults) {
  return std::make_shared<fault_file_system>(std::move(base), std::move(faults));
}

}  // namespace foyer::store::detail
