#include "store/log_copy.hpp"

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/base/bytes.hpp"
#include "store/rocks_store.hpp"

namespace foyer::store {
namespace {

// A batch is written once it holds this much: the copy's memory stays small.
constexpr std::size_t batch_bytes = std::size_t{4} << 20;

[[noreturn]] void fail(const std::filesystem::path& dir, std::string_view what, const rocksdb::Status& s) {
  throw store_error(fmt::format("{}: {}: {}", dir.string(), what, s.ToString()));
}

struct open_db {
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> families;
  ~open_db() {
    for (auto* f : families) db->DestroyColumnFamilyHandle(f).PermitUncheckedError();
  }
};

std::vector<rocksdb::ColumnFamilyDescriptor> descriptors(const std::vector<std::string>& names) {
  rocksdb::ColumnFamilyOptions options;
  options.compression = rocksdb::kLZ4Compression;
  std::vector<rocksdb::ColumnFamilyDescriptor> out;
  for (const auto& name : names) out.emplace_back(name, options);
  return out;
}

}  // namespace

copied_log copy_log(const std::filesystem::path& dir, const std::filesystem::path& dest,
                    const std::filesystem::path& scratch) {
  std::vector<std::string> names;
  rocksdb::DBOptions source_options;
  auto s = rocksdb::DB::ListColumnFamilies(source_options, dir.string(), &names);
  if (!s.ok()) fail(dir, "not a Foyer store", s);
  // Visitors' addresses stay out of the copy: a backup is kept long after they are used.
  std::erase(names, std::string(contacts_family));

  // The secondary reads the primary's MANIFEST and WALs without its lock, and keeps the
  // files it reads open, so compaction on the primary cannot pull them away.
  source_options.max_open_files = -1;
  open_db source;
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::OpenAsSecondary(source_options, dir.string(), scratch.string(), descriptors(names),
                                   &source.families, &raw);
  if (!s.ok()) fail(dir, "cannot read the store", s);
  source.db.reset(raw);
  s = source.db->TryCatchUpWithPrimary();
  if (!s.ok()) fail(dir, "cannot catch up with the running server", s);

  rocksdb::DBOptions dest_options;
  dest_options.create_if_missing = true;
  dest_options.create_missing_column_families = true;
  dest_options.error_if_exists = true;
  open_db copy;
  s = rocksdb::DB::Open(dest_options, dest.string(), descriptors(names), &copy.families, &raw);
  if (!s.ok()) fail(dest, "cannot create the copy", s);
  copy.db.reset(raw);

  copied_log out;
  rocksdb::WriteOptions sync;
  sync.sync = true;
  for (std::size_t i = 0; i < names.size(); ++i) {
    rocksdb::WriteBatch batch;
    std::unique_ptr<rocksdb::Iterator> it(source.db->NewIterator(rocksdb::ReadOptions(), source.families[i]));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      s = batch.Put(copy.families[i], it->key(), it->value());
      if (!s.ok()) fail(dest, "cannot copy", s);
      ++out.records;
      // Event keys are big-endian seqs in order: the last one read is the newest.
      if (names[i] == events_family && it->key().size() == 8) {
        out.last_seq = get_be64(reinterpret_cast<const std::uint8_t*>(it->key().data()));
      }
      if (batch.GetDataSize() >= batch_bytes) {
        s = copy.db->Write(sync, &batch);
        if (!s.ok()) fail(dest, "cannot write the copy", s);
        batch.Clear();
      }
    }
    if (!it->status().ok()) fail(dir, "cannot read the store", it->status());
    s = copy.db->Write(sync, &batch);
    if (!s.ok()) fail(dest, "cannot write the copy", s);
  }
  s = copy.db->FlushWAL(true);
  if (!s.ok()) fail(dest, "cannot sync the copy", s);
  return out;
}

}  // namespace foyer::store
