#pragma once

#include "core/jobs/jobspec.h"

#include <QMap>

namespace torchdeck {

// Named job specs the user saved from the new-job form, to start the next job from. One JSON file
// ({"templates": {"<name>": <JobSpec JSON>}}) beside the profiles, written atomically.
class JobTemplates {
public:
    // configDirectory()/job-templates.json: $TORCHDECK_CONFIG_DIR, else ~/.config/torchdeck
    static QString defaultPath();

    explicit JobTemplates(QString path = defaultPath());

    // A missing file is no templates; a broken one is an error and save() then refuses to overwrite it.
    // A template that no longer reads as a JobSpec is left out, and named in `error`.
    bool load(QString *error);
    bool save(QString *error) const;

    QString path() const { return m_path; }
    QStringList names() const { return m_specs.keys(); }
    bool contains(const QString &name) const { return m_specs.contains(name); }
    JobSpec spec(const QString &name) const { return m_specs.value(name); }
    void put(const QString &name, const JobSpec &spec) { m_specs.insert(name, spec); }
    bool remove(const QString &name) { return m_specs.remove(name) > 0; }

private:
    QString m_path;
    QMap<QString, JobSpec> m_specs;
    bool m_broken = false;
};

} // namespace torchdeck
