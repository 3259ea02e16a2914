#include "core/profiles/jobtemplates.h"
#include "gui/jobform.h"
#include "gui/jobtemplatebar.h"
#include "testmain.h"

#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

// Job templates: the form's job saved under a name lands in the config dir's file, fills a later form,
// survives a restart, can be deleted; a broken file is reported and never overwritten.
class TestJobTemplates : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        m_dir.reset(new QTemporaryDir);
        qputenv("TORCHDECK_CONFIG_DIR", QFile::encodeName(m_dir->path()));
    }

    void savedTemplatesFillALaterForm()
    {
        QCOMPARE(JobTemplates::defaultPath(), m_dir->filePath(QStringLiteral("job-templates.json")));
        JobSpec saved;
        {
            JobForm form;
            JobTemplateBar bar(&form);
            QVERIFY(bar.names().isEmpty());
            QVERIFY(!bar.box()->isEnabled());
            qobject_cast<QLineEdit *>(form.field(QStringLiteral("partition")))->setText(QStringLiteral("gpu"));
            qobject_cast<QSpinBox *>(form.field(QStringLiteral("nodes")))->setValue(4);
            QVERIFY(!bar.saveAs(QStringLiteral("  ")));
            QVERIFY(!bar.problem().isEmpty());
            QVERIFY2(bar.saveAs(QStringLiteral("big gpu")), qPrintable(bar.problem()));
            QVERIFY(bar.problem().isEmpty());
            QCOMPARE(bar.box()->currentText(), QStringLiteral("big gpu"));
            saved = form.spec();
        }
        QVERIFY(QFile::exists(JobTemplates::defaultPath()));

        JobForm form; // a later dialog
        JobTemplateBar bar(&form);
        QCOMPARE(bar.names(), QStringList{QStringLiteral("big gpu")});
        QVERIFY(form.spec() != saved);
        QVERIFY(bar.apply(QStringLiteral("big gpu")));
        QCOMPARE(form.spec(), saved);
        QCOMPARE(qobject_cast<QSpinBox *>(form.field(QStringLiteral("nodes")))->value(), 4);

        QVERIFY(bar.remove(QStringLiteral("big gpu")));
        JobTemplates reread;
        QString error;
        QVERIFY(reread.load(&error));
        QVERIFY(reread.names().isEmpty());
    }

    void invalidFormIsNotSaved()
    {
        JobForm form;
        JobTemplateBar bar(&form);
        qobject_cast<QLineEdit *>(form.field(QStringLiteral("wallTimeSeconds")))->setText(QStringLiteral("soon"));
        QVERIFY(!bar.saveAs(QStringLiteral("broken")));
        QVERIFY(bar.problem().contains(QStringLiteral("errors")));
        QVERIFY(!QFile::exists(JobTemplates::defaultPath()));
    }

    void brokenFileIsNeverOverwritten()
    {
        QFile file(JobTemplates::defaultPath());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{ not json");
        file.close();
        JobForm form;
        JobTemplateBar bar(&form);
        QVERIFY(bar.problem().contains(QStringLiteral("not a torchdeck job template file")));
        QVERIFY(!bar.saveAs(QStringLiteral("x")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("{ not json"));
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
};

TORCHDECK_TEST_MAIN(TestJobTemplates)
#include "tst_jobtemplates.moc"
