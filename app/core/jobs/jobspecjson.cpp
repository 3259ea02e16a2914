// JobSpec <-> JSON (the form stored in the run store and in job files). Missing keys keep their defaults;
// a key of the wrong type or out of range is an error naming it.
#include "core/coretr.h"
#include "core/jobs/jobspec.h"
#include "core/jobs/walltime.h"

#include <QJsonArray>
#include <cmath>
#include <utility>

namespace torchdeck {

using namespace Qt::StringLiterals;

namespace {

constexpr int kSchemaVersion = 1;

QJsonArray toArray(const QStringList &list)
{
    return QJsonArray::fromStringList(list);
}

template <typename E, std::size_t N>
std::optional<E> enumFromName(const QString &name, const std::pair<E, const char16_t *> (&table)[N])
{
    for (const auto &[value, text] : table) {
        if (name == QStringView(text))
            return value;
    }
    return std::nullopt;
}

constexpr std::pair<LaunchMethod, const char16_t *> kLaunchNames[] = {
    {LaunchMethod::Srun, u"srun"},
    {LaunchMethod::SrunPerNodeLauncher, u"srun-per-node"},
    {LaunchMethod::Mpirun, u"mpirun"},
    {LaunchMethod::Local, u"local"},
};
constexpr std::pair<ContainerRuntime, const char16_t *> kRuntimeNames[] = {
    {ContainerRuntime::None, u"none"},
    {ContainerRuntime::Apptainer, u"apptainer"},
    {ContainerRuntime::Singularity, u"singularity"},
    {ContainerRuntime::Shifter, u"shifter"},
};
constexpr std::pair<CommandKind, const char16_t *> kCommandNames[] = {
    {CommandKind::Trainer, u"trainer"},
    {CommandKind::Custom, u"custom"},
};
constexpr std::pair<DependencyKind, const char16_t *> kDependencyNames[] = {
    {DependencyKind::After, u"after"},
    {DependencyKind::AfterOk, u"afterok"},
    {DependencyKind::AfterNotOk, u"afternotok"},
    {DependencyKind::AfterAny, u"afterany"},
};

// Reads keys of one object; remembers the first error, after which every read is a no-op.
class Reader {
public:
    Reader(const QJsonObject &object, QString path, QString &error)
        : m_object(object)
        , m_path(std::move(path))
        , m_error(error)
    {
    }

    bool failed() const { return !m_error.isEmpty(); }

    void fail(const QString &key, const QString &what)
    {
        if (!failed())
            m_error = m_path + key + QStringLiteral(": ") + what;
    }

    // The value if present and no error yet; else an undefined value.
    QJsonValue get(const QString &key) const
    {
        return failed() ? QJsonValue(QJsonValue::Undefined) : m_object.value(key);
    }

    void string(const QString &key, QString &out)
    {
        const QJsonValue v = get(key);
        if (v.isUndefined())
            return;
        if (!v.isString())
            return fail(key, core::Tr::tr("expected a string"));
        out = v.toString();
    }

    void boolean(const QString &key, bool &out)
    {
        const QJsonValue v = get(key);
        if (v.isUndefined())
            return;
        if (!v.isBool())
            return fail(key, core::Tr::tr("expected true or false"));
        out = v.toBool();
    }

    template <typename T> void integer(const QString &key, T &out, qint64 min, qint64 max)
    {
        const QJsonValue v = get(key);
        if (v.isUndefined())
            return;
        const double d = v.toDouble();
        if (!v.isDouble() || d != std::floor(d) || d < double(min) || d > double(max))
            return fail(key, core::Tr::tr("expected an integer from %1 to %2").arg(min).arg(max));
        out = static_cast<T>(d);
    }

    void stringList(const QString &key, QStringList &out)
    {
        const QJsonValue v = get(key);
        if (v.isUndefined())
            return;
        if (!v.isArray())
            return fail(key, core::Tr::tr("expected an array of strings"));
        QStringList list;
        for (const QJsonValue item : v.toArray()) {
            if (!item.isString())
                return fail(key, core::Tr::tr("expected an array of strings"));
            list.append(item.toString());
        }
        out = list;
    }

    template <typename E, std::size_t N>
    void choice(const QString &key, E &out, const std::pair<E, const char16_t *> (&table)[N])
    {
        QString name;
        string(key, name);
        if (failed() || get(key).isUndefined())
            return;
        if (const auto value = enumFromName(name, table))
            out = *value;
        else
            fail(key, core::Tr::tr("unknown value '%1'").arg(name));
    }

    // An array of objects, each read by `readOne(Reader&, T&)`.
    template <typename T, typename F> void objects(const QString &key, QList<T> &out, F readOne)
    {
        const QJsonValue v = get(key);
        if (v.isUndefined())
            return;
        if (!v.isArray())
            return fail(key, core::Tr::tr("expected an array of objects"));
        QList<T> list;
        const QJsonArray array = v.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (!array[i].isObject())
                return fail(key, core::Tr::tr("expected an array of objects"));
            Reader item(array[i].toObject(), m_path + key + QStringLiteral("[%1].").arg(i), m_error);
            T value;
            readOne(item, value);
            if (failed())
                return;
            list.append(value);
        }
        out = list;
    }

private:
    QJsonObject m_object;
    QString m_path;
    QString &m_error;
};

} // namespace

QJsonObject JobSpec::toJson() const
{
    QJsonArray env;
    QJsonArray variants;
    for (const ClusterCommand &variant : commandOn)
        variants.append(QJsonObject{{u"cluster"_s, variant.cluster}, {u"command"_s, variant.command}});
    for (const EnvironmentVariable &var : environment)
        env.append(QJsonObject{{u"name"_s, var.name}, {u"value"_s, var.value}});
    QJsonArray deps;
    for (const JobDependency &dep : dependencies)
        deps.append(QJsonObject{{u"kind"_s, dependencyKindName(dep.kind)}, {u"jobIds"_s, toArray(dep.jobIds)}});
    return QJsonObject{
        {u"version"_s, kSchemaVersion},
        {u"name"_s, name},
        {u"nodes"_s, nodes},
        {u"tasksPerNode"_s, tasksPerNode},
        {u"gpusPerNode"_s, gpusPerNode},
        {u"gpusPerTask"_s, gpusPerTask},
        {u"gpuType"_s, gpuType},
        {u"cpusPerTask"_s, cpusPerTask},
        {u"memory"_s, memory},
        {u"wallTimeSeconds"_s, wallTimeSeconds},
        {u"partition"_s, partition},
        {u"account"_s, account},
        {u"modules"_s, toArray(modules)},
        {u"environment"_s, env},
        {u"workingDirectory"_s, workingDirectory},
        {u"launch"_s, launchMethodName(launch)},
        {u"launcherOptions"_s, toArray(launcherOptions)},
        {u"mpiAllowRunAsRoot"_s, mpiAllowRunAsRoot},
        {u"oversubscribe"_s, oversubscribe},
        {u"container"_s, QJsonObject{{u"runtime"_s, containerRuntimeName(container.runtime)},
                                     {u"image"_s, container.image},
                                     {u"options"_s, toArray(container.options)}}},
        {u"commandKind"_s, commandKindName(commandKind)},
        {u"trainerPath"_s, trainerPath},
        {u"trainerArgs"_s, toArray(trainerArgs)},
        {u"customCommand"_s, customCommand},
        {u"commandOn"_s, variants},
        {u"perNodeLauncher"_s, perNodeLauncher},
        {u"logPatterns"_s, toArray(logPatterns)},
        {u"code"_s, codeDirectory},
        {u"codeSnapshot"_s, codeSnapshot},
        {u"masterPort"_s, masterPort},
        {u"outputPath"_s, outputPath},
        {u"errorPath"_s, errorPath},
        {u"checkpointSignalEnabled"_s, checkpointSignalEnabled},
        {u"checkpointSignal"_s, checkpointSignal},
        {u"signalLeadSeconds"_s, signalLeadSeconds},
        {u"requeue"_s, requeue},
        {u"maxRestarts"_s, maxRestarts},
        {u"requeueExitCode"_s, requeueExitCode},
        {u"stallSeconds"_s, stallSeconds},
        {u"moveAfterSeconds"_s, moveAfterSeconds},
        {u"traceFile"_s, traceFile},
        {u"dependencies"_s, deps},
        {u"extraDirectives"_s, toArray(extraDirectives)},
    };
}

JobSpec::FromJson JobSpec::fromJson(const QJsonObject &object)
{
    FromJson result;
    JobSpec &s = result.spec;
    Reader r(object, QString(), result.error);
    int version = kSchemaVersion;
    r.integer(u"version"_s, version, 1, kSchemaVersion);
    r.string(u"name"_s, s.name);
    r.integer(u"nodes"_s, s.nodes, 0, 1 << 20);
    r.integer(u"tasksPerNode"_s, s.tasksPerNode, 0, 1 << 20);
    r.integer(u"gpusPerNode"_s, s.gpusPerNode, 0, 1 << 20);
    r.integer(u"gpusPerTask"_s, s.gpusPerTask, 0, 1 << 20);
    r.string(u"gpuType"_s, s.gpuType);
    r.integer(u"cpusPerTask"_s, s.cpusPerTask, 0, 1 << 20);
    r.string(u"memory"_s, s.memory);
    if (r.get(u"wallTimeSeconds"_s).isString()) { // hand-written job files may say "1-12:00:00"
        const QString text = r.get(u"wallTimeSeconds"_s).toString();
        if (const auto seconds = parseWallTime(text))
            s.wallTimeSeconds = *seconds;
        else
            r.fail(u"wallTimeSeconds"_s, core::Tr::tr("malformed wall time '%1'").arg(text));
    } else {
        r.integer(u"wallTimeSeconds"_s, s.wallTimeSeconds, 0, qint64(366) * 24 * 3600);
    }
    r.string(u"partition"_s, s.partition);
    r.string(u"account"_s, s.account);
    r.stringList(u"modules"_s, s.modules);
    r.objects(u"environment"_s, s.environment, [](Reader &item, EnvironmentVariable &var) {
        item.string(u"name"_s, var.name);
        item.string(u"value"_s, var.value);
    });
    r.string(u"workingDirectory"_s, s.workingDirectory);
    r.choice(u"launch"_s, s.launch, kLaunchNames);
    r.stringList(u"launcherOptions"_s, s.launcherOptions);
    r.boolean(u"mpiAllowRunAsRoot"_s, s.mpiAllowRunAsRoot);
    r.boolean(u"oversubscribe"_s, s.oversubscribe);
    if (const QJsonValue c = r.get(u"container"_s); !c.isUndefined()) {
        if (!c.isObject()) {
            r.fail(u"container"_s, core::Tr::tr("expected an object"));
        } else {
            Reader cr(c.toObject(), QStringLiteral("container."), result.error);
            cr.choice(u"runtime"_s, s.container.runtime, kRuntimeNames);
            cr.string(u"image"_s, s.container.image);
            cr.stringList(u"options"_s, s.container.options);
        }
    }
    r.choice(u"commandKind"_s, s.commandKind, kCommandNames);
    r.string(u"trainerPath"_s, s.trainerPath);
    r.stringList(u"trainerArgs"_s, s.trainerArgs);
    r.string(u"customCommand"_s, s.customCommand);
    r.objects(u"commandOn"_s, s.commandOn, [](Reader &item, ClusterCommand &variant) {
        item.string(u"cluster"_s, variant.cluster);
        item.string(u"command"_s, variant.command);
    });
    r.string(u"perNodeLauncher"_s, s.perNodeLauncher);
    r.stringList(u"logPatterns"_s, s.logPatterns);
    r.string(u"code"_s, s.codeDirectory);
    r.string(u"codeSnapshot"_s, s.codeSnapshot);
    r.integer(u"masterPort"_s, s.masterPort, 0, 65535);
    r.string(u"outputPath"_s, s.outputPath);
    r.string(u"errorPath"_s, s.errorPath);
    r.boolean(u"checkpointSignalEnabled"_s, s.checkpointSignalEnabled);
    r.string(u"checkpointSignal"_s, s.checkpointSignal);
    r.integer(u"signalLeadSeconds"_s, s.signalLeadSeconds, 0, 65535);
    r.boolean(u"requeue"_s, s.requeue);
    r.integer(u"maxRestarts"_s, s.maxRestarts, 0, 10000);
    r.integer(u"requeueExitCode"_s, s.requeueExitCode, 1, 255);
    r.integer(u"stallSeconds"_s, s.stallSeconds, 0, 7 * 86400);
    r.integer(u"moveAfterSeconds"_s, s.moveAfterSeconds, 0, 30 * 86400);
    r.string(u"traceFile"_s, s.traceFile);
    r.objects(u"dependencies"_s, s.dependencies, [](Reader &item, JobDependency &dep) {
        item.choice(u"kind"_s, dep.kind, kDependencyNames);
        item.stringList(u"jobIds"_s, dep.jobIds);
    });
    r.stringList(u"extraDirectives"_s, s.extraDirectives);
    if (!result.ok())
        result.spec = JobSpec();
    return result;
}

namespace {
// The keys of `object` that `reference` (the same place in a JobSpec's JSON) lacks, with their path; arrays of objects
// are held against the reference's first item.
void collectUnknownKeys(const QJsonObject &object, const QJsonObject &reference, const QString &path,
                        QStringList *unknown)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString key = path + it.key();
        if (!reference.contains(it.key())) {
            unknown->append(key);
            continue;
        }
        const QJsonValue known = reference.value(it.key());
        if (it.value().isObject() && known.isObject())
            collectUnknownKeys(it.value().toObject(), known.toObject(), key + u'.', unknown);
        if (it.value().isArray() && known.isArray() && known.toArray().first().isObject()) {
            const QJsonArray items = it.value().toArray();
            for (qsizetype i = 0; i < items.size(); ++i)
                if (items.at(i).isObject())
                    collectUnknownKeys(items.at(i).toObject(), known.toArray().first().toObject(),
                                       key + QStringLiteral("[%1].").arg(i), unknown);
        }
    }
}
} // namespace

QStringList unknownJobSpecKeys(const QJsonObject &object)
{
    JobSpec full; // one item in each list of objects, so that their keys are known too
    full.environment = {EnvironmentVariable{}};
    full.commandOn = {ClusterCommand{}};
    full.dependencies = {JobDependency{}};
    QStringList unknown;
    collectUnknownKeys(object, full.toJson(), QString(), &unknown);
    return unknown;
}

} // namespace torchdeck
